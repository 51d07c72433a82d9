#!/bin/sh
# witch report --format=pprof: gzipped profile.proto that `go tool pprof`
# reads with the weights of --format=folded (the same total, the same top
# function), addresses, source lines and inlined functions; on profiles
# written by hand with known numbers and on real ones (witch spy: dead,
# load, rvn; witch cpi). Bad uses get one line and a non-zero exit.
. "$(dirname "$0")/lib.sh"

# go keeps a cache under HOME: none of the caller's.
export HOME="$TMP/home" GOCACHE="$TMP/go-cache" GOPATH="$TMP/go"
pprof() { go tool pprof "$@" 2>"$TMP/pprof.err"; }
command -v go >/dev/null
ok $? "go is installed (scripts/install-deps installs golang-go)"

# Contexts are code of witch itself (lib.sh's BIN, MODULE, sym), whose
# build-id the profile names: main calling wr_ratio (A, and A1 one byte
# further: another context of the same function), wr_stat (B) and
# wr_redundancy (C). A leaf is the instruction's own address, main's node a
# return address inside it.
MAIN=$(printf '%x' $((0x$(sym main) + 1)))
A=$(sym wr_ratio)
A1=$(printf '%x' $((0x$A + 1)))
B=$(sym wr_stat)
C=$(sym wr_redundancy)
ID=$(readelf -n "$BIN" | awk '$1 == "Build" && $2 == "ID:" { print $3 }')
[ -n "$A" ] && [ -n "$B" ] && [ -n "$C" ] && [ -n "$ID" ]
ok $? "witch's own functions and build-id to make contexts of"

# Waste by the first (watch) context: A 150.4 and A1 50.4, one folded stack
# of 200.8, rounded to 201 (the contexts rounded alone would make 200);
# B 49.6, 50. By the second (trap): B 150, C 50, A 50.
mkdir "$TMP/dead"
{
	printf 'WITCH-PROFILE 1\ntool dead\nsource timer\nrate_hz 250\nperiod 0\nregisters 0\npid 101\n'
	printf 'start_ns 1\nend_ns 2\nstatus complete\narg 0 ./app\nmodule 0 %s 0 %s\n' "$ID" "$MODULE"
	printf 'stat samples 10\nstat watchpoints_armed 10\nstat traps 7\nthread 101 6 4\n'
	printf 'n 0 -1 -1 0 0\nn 1 0 0 %s 0\nn 2 1 0 %s 0\nn 3 1 0 %s 0\nn 4 1 0 %s 0\nn 5 1 0 %s 0\n' \
		"$MAIN" "$A" "$B" "$A1" "$C"
	printf 'p 2 3 150.400 0.000 3\np 4 5 50.400 0.000 1\np 3 2 49.600 300.000 2\np 5 5 0.000 400.000 1\n'
} | awk '{ print } END { print "end", NR }' >"$TMP/dead/app-101.witch"

"$WITCH" report --format=pprof -o "$TMP/dead.pb.gz" "$TMP/dead" 2>"$TMP/err"
ok $? "--format=pprof -o FILE"
is "$(cat "$TMP/err")" "" "no warnings"
is "$(od -An -tx1 -N2 "$TMP/dead.pb.gz" | tr -d ' ')" 1f8b "the file is gzip"
pprof -raw "$TMP/dead.pb.gz" >"$TMP/raw"
ok $? "go tool pprof reads it"
is "$(sed -n '/^Samples:/,/^Locations/p' "$TMP/raw" | awk '$1 ~ /^[0-9]+:$/ { print $1, $2, $3 }' | sort -n)" \
	"50: 4 2
51: 3 2
150: 1 2" "a sample per context, leaf first; A1 takes what makes its stack 201"
is "$(sed -n 's/^waste\/bytes$/&/p' "$TMP/raw")" "waste/bytes" "sample type waste in bytes"
grep -Eq "^ +1: 0x$A M=1 wr_ratio [^ ]+\.c:[1-9][0-9]* s=0$" "$TMP/raw"
ok $? "a location: the leaf's address in its module, its function and file:line"
grep -Eq "^ +2: 0x$(sym main) M=1 main [^ ]+\.c:[1-9][0-9]* s=0$" "$TMP/raw"
ok $? "a caller's: inside its call (its return address - 1)"
like "$(sed -n '/^Mappings/,$p' "$TMP/raw" | tail -n +2)" "^1: 0x0/0x[0-9a-f]+/0x0 $BIN $ID \[FN\]\[FL\]\[LN\]\[IN\]$" \
	"one mapping: the module's file and build-id, its functions and lines given"

# rows FILE: "flat function" of each -top row.
rows() { awk '/ flat%/ { on = 1; next } on { print $1, $6 }' "$1"; }
pprof -top -unit=B "$TMP/dead.pb.gz" >"$TMP/top"
like "$(cat "$TMP/top")" " of 251B total$" "-top: the folded stacks' total, 201 + 50"
is "$(rows "$TMP/top")" "201B wr_ratio
50B wr_stat
0 main" "each function with its folded stack's weight"

"$WITCH" report --format=pprof --folded-by=second "$TMP/dead" >"$TMP/second.pb.gz"
ok $? "--folded-by=second, stdout redirected"
pprof -top -unit=B "$TMP/second.pb.gz" >"$TMP/top"
is "$(rows "$TMP/top" | sort)" "0 main
150B wr_stat
50B wr_ratio
50B wr_redundancy" "by the second contexts: the killing stores' functions"

# Code no module names: [module] or [unknown] functions, as folded names
# them, without folded's '?' for ';'.
mkdir "$TMP/nosym"
{
	printf 'WITCH-PROFILE 1\ntool deadspy\nsource exhaustive\nrate_hz 0\nperiod 0\nregisters 0\n'
	printf 'pid 104\nstart_ns 1\nend_ns 2\nstatus complete\narg 0 ./app\n'
	printf 'module 0 - 0 /nonexistent/lib%%3Bx.so\nthread 104 4 3\n'
	printf 'n 0 -1 -1 0 0\nn 1 0 0 1001 0\nn 2 1 0 2000 0\nn 3 1 -1 7fff0000 0\n'
	printf 'p 2 2 8.000 0.000 1\np 3 3 4.000 0.000 1\np 0 0 2.000 0.000 1\n'
} | awk '{ print } END { print "end", NR }' >"$TMP/nosym/app-104.witch"
"$WITCH" report --format=pprof -o "$TMP/nosym.pb.gz" "$TMP/nosym" 2>/dev/null
ok $? "a profile of unreadable modules"
pprof -top -unit=B "$TMP/nosym.pb.gz" >"$TMP/top"
is "$(rows "$TMP/top")" "8B [lib;x.so]
6B [unknown]" "frames named by their module, or [unknown] (an empty context too)"

# Real profiles: pprof's total and top function are folded's.
# same_as_folded DIR UNIT WHAT [OPTIONS]: the total, and the top function
# of -top with the weight folded gives its frame (ties: any of the top).
same_as_folded() {
	_dir=$1 _unit=$2 _what=$3
	shift 3
	"$WITCH" report --format=folded "$@" "$_dir" >"$TMP/folded" 2>/dev/null &&
		"$WITCH" report --format=pprof -o "$TMP/p.pb.gz" "$@" "$_dir" 2>/dev/null
	ok $? "$_what: folded and pprof"
	pprof -top -nodecount=3 -unit="$_unit" "$TMP/p.pb.gz" >"$TMP/top"
	is "$(sed -n "s/.* of \([0-9]*\)$_unit total\$/\1/p" "$TMP/top")" \
		"$(awk '{ s += $NF } END { print s + 0 }' "$TMP/folded")" "$_what: the total is the folded weights' sum"
	_top=$(awk '/ flat%/ { on = 1; next } on { sub(/ \(inline\)$/, ""); $2 = $3 = $4 = $5 = ""
		sub(/ +/, " "); print; exit }' "$TMP/top")
	# Each leaf frame's weight in the folded stacks.
	awk '{ w = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";"); s[f[n]] += w }
		END { for (k in s) print s[k] "'"$_unit"'", k }' "$TMP/folded" | sort -rn >"$TMP/leaves"
	_w=$(grep -Fx -- "$_top" "$TMP/leaves" | cut -d' ' -f1)
	[ -n "$_w" ] && [ "$_w" = "$(head -n 1 "$TMP/leaves" | cut -d' ' -f1)" ]
	ok $? "$_what: the top function ($_top) weighs the most, as in folded"
}

"$WITCH" spy --quiet --tool=dead -o "$TMP/sd" -- "$PROGS/contexts" 3 >/dev/null
same_as_folded "$TMP/sd" B "spy dead"
like "$_top" "^[0-9]+B put$" "its top function is the inlined put()"
pprof -top -lines -nodecount=1 "$TMP/p.pb.gz" >"$TMP/lines"
like "$(cat "$TMP/lines")" " put tests/progs/contexts\.c:$(line_of "$TOP/tests/progs/contexts.c" PUT_LINE) *$" \
	"-lines: put() at its line"
pprof -raw "$TMP/p.pb.gz" >"$TMP/raw"
like "$(grep -A1 -E " put [^ ]*contexts\.c:$(line_of "$TOP/tests/progs/contexts.c" PUT_LINE) s=0$" "$TMP/raw" | sed -n 2p)" \
	"^ +fill [^ ]*contexts\.c:$(line_of "$TOP/tests/progs/contexts.c" FILL_CALL) s=0$" \
	"an inlined function and its caller are two lines of one location"
like "$(cat "$TMP/raw")" "^Comment: witch: dead stores \(DeadSpy, exhaustive\)" "a comment says what it is"
same_as_folded "$TMP/sd" B "spy dead, by the second contexts" --folded-by=second

"$WITCH" spy --quiet --tool=load -o "$TMP/sl" -- "$PROGS/spy_load" >/dev/null
same_as_folded "$TMP/sl" B "spy load"

"$WITCH" spy --quiet --tool=rvn -o "$TMP/sr" -- "$PROGS/rvn_recompute" bad 2000 >/dev/null
same_as_folded "$TMP/sr" executions "spy rvn"
like "$_top" " norm$" "its top function is norm()"

"$WITCH" cpi -q -o "$TMP/c" -- "$PROGS/cpi_fig1" >/dev/null 2>&1
same_as_folded "$TMP/c" ns "witch cpi"

# Bad uses: one line, a non-zero exit.
script -qec "'$WITCH' report --format=pprof '$TMP/dead'" /dev/null </dev/null >"$TMP/tty"
st=$?
[ "$st" -ne 0 ] && [ "$st" -lt 128 ]; ok $? "binary to a terminal: refused ($st)"
is "$(tr -d '\r' <"$TMP/tty")" "witch report: --format=pprof writes a binary file; name it with -o FILE, such as -o out.pb.gz (or redirect stdout)" \
	"one line says to use -o"
script -qec "'$WITCH' report --format=pprof -o '$TMP/tty.pb.gz' '$TMP/dead'" /dev/null </dev/null >"$TMP/tty"
ok $? "with -o, on a terminal"
cmp -s "$TMP/tty.pb.gz" "$TMP/dead.pb.gz"
ok $? "the same file"

mkdir "$TMP/causal"
printf 'witch-causal\tversion=1\tpid=1\tcommand=./app\n' >"$TMP/causal/causal.1"
expect_error "causal profiles" '^witch report: --format=pprof needs calling contexts' \
	"$WITCH" report --format=pprof -o "$TMP/x.pb.gz" "$TMP/causal"
mkdir "$TMP/loop"
{
	printf 'WITCH-PROFILE 1\ntool loop\nthresholds 10 0.9 0.8\nsource exhaustive\nrate_hz 0\n'
	printf 'period 0\nregisters 0\npid 5\nstart_ns 1\nend_ns 2\nstatus complete\narg 0 ./app\n'
	printf 'module 0 - 0 %s\nloop 0 0 %s -1 0 10 20 /src/a.c\n' "$MODULE" "$A"
	printf 'stat reads 0\nstat reads_in_loops 0\nstat reads_untracked 0\nstat loops_untracked 0\n'
	printf 'stat loops 1\nthread 5 2 0\n'
	printf 'n 0 -1 -1 0 0\nn 1 0 0 %s 0\n' "$MAIN"
} | awk '{ print } END { print "end", NR }' >"$TMP/loop/app-5.witch"
expect_error "loop profiles" '^witch report: --format=pprof stacks pairs of contexts; .* holds loops' \
	"$WITCH" report --format=pprof -o "$TMP/x.pb.gz" "$TMP/loop"
expect_error "a directory that does not exist" "^witch report: cannot write $TMP/none/x.pb.gz: " \
	"$WITCH" report --format=pprof -o "$TMP/none/x.pb.gz" "$TMP/dead"
expect_error "--folded-by=second on witch cpi's" '^witch report: --folded-by=second applies to the pairs' \
	"$WITCH" report --format=pprof --folded-by=second -o "$TMP/x.pb.gz" "$TMP/c"
[ ! -e "$TMP/x.pb.gz" ]
ok $? "and no file is left"

"$WITCH" report --help >"$TMP/help"
like "$(cat "$TMP/help")" '--format=pprof' "--help lists --format=pprof"
done_testing
