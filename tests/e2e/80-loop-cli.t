#!/bin/sh
# witch spy --tool=loop runs the program twice: a counting run whose loops
# (witch cpi's analysis) are written as the loop map DIR/cfg/loops.map,
# then the loop run, given the map and the thresholds. Bad thresholds get
# one line and exit 2. The map is checked on a program of known loops;
# the checks of the loop run's own output wait for the Valgrind tool's
# --witch-tool=loop and are skipped while it refuses it.
. "$(dirname "$0")/lib.sh"

p=$PROGS/loop_nest
src=$TOP/tests/progs/loop_nest.c

for bad in "--tool=loop --thresholds=0,0.9,0.8" "--tool=loop --thresholds=10,1.5,0.8" \
	"--tool=loop --thresholds=abc" "--thresholds=10,0.9,0.8" "--tool=rvn --thresholds=10,0.9,0.8" \
	"--tool=loop --thresholds=10,0.9" "--tool=loop --thresholds=10,0.9,0.8,1" \
	"--tool=loop --thresholds=10,0%,0.8" "--tool=loop --thresholds=10,0.9,101%" \
	"--tool=loop --thresholds=10,-0.5,0.8" "--tool=loop --thresholds=10,nan,0.8" \
	"--tool=loop --thresholds=10,0.9," "--tool=loop --thresholds=-1,0.9,0.8"; do
	# shellcheck disable=SC2086
	"$WITCH" spy $bad -o "$TMP/bad" -- "$p" >/dev/null 2>"$TMP/err"
	is "$?,$(wc -l <"$TMP/err" | tr -d ' ')" 2,1 "witch spy $bad: one line, exit 2: $(cat "$TMP/err")"
done
[ ! -e "$TMP/bad" ]; ok $? "bad options leave no output directory"
expect_error "--thresholds without its value" "^witch spy: --thresholds needs three thresholds" \
	"$WITCH" spy --tool=loop --thresholds
like "$("$WITCH" spy --thresholds=5,0.9,0.8 -- "$p" 2>&1)" "^witch spy: --thresholds applies to --tool=loop, not --tool=dead$" \
	"--thresholds without --tool=loop says which tool it belongs to"
"$WITCH" spy --help >"$TMP/help"
like "$(cat "$TMP/help")" '--tool=dead\|silent\|load\|rvn\|loop' "--help lists the loop tool"
like "$(cat "$TMP/help")" '--thresholds=A,R,RI' "--help explains --thresholds"

# A valgrind that notes each command line, to see what the runs are given.
real=$(command -v valgrind)
mkdir "$TMP/bin"
cat >"$TMP/bin/valgrind" <<EOS
#!/bin/sh
printf '%s\n' "\$*" >>"$TMP/vg.args"
exec "$real" "\$@"
EOS
chmod +x "$TMP/bin/valgrind"

PATH=$TMP/bin:$PATH "$WITCH" spy --tool=loop --thresholds=5,90%,0.75 -o "$TMP/l" -- "$p" 30 \
	>"$TMP/l.out" 2>"$TMP/l.err"
st=$?
is "$(wc -l <"$TMP/vg.args" | tr -d ' ')" 2 "two runs under Valgrind"
like "$(sed -n 1p "$TMP/vg.args")" "^--tool=witchspy --witch-tool=count --witch-out=$TMP/l/cfg " \
	"run 1 counts, into DIR/cfg"
like "$(sed -n 2p "$TMP/vg.args")" \
	"^--tool=witchspy --witch-tool=loop --witch-loops=$TMP/l/cfg/loops.map --witch-thresholds=5,0.9,0.75 --witch-out=$TMP/l " \
	"run 2 watches loops with the map and the thresholds as decimals (90% is 0.9), into DIR"
like "$(sed -n 2p "$TMP/vg.args")" "--trace-children=yes .* $p 30$" "run 2 runs the program with its arguments"

map=$TMP/l/cfg/loops.map
[ -s "$map" ]; ok $? "the loop map is DIR/cfg/loops.map"
is "$(sed -n 1p "$map")" "witch-loops 1" "the map starts with its header"
is "$(tail -n 1 "$map")" "end" "and ends with end"
# Its grammar: ids 0.. in order, a parent written before its children at
# one level less deep, every loop after an f line holding its header and
# with at least one b line, one of them starting at the header; its exits
# (e lines) in its function.
is "$(awk '
	function hex(s,   i, v) {
		v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function close_loop() { if (cur != "" && !nb) bad = bad " loop " cur " has no block"
		if (cur != "" && !athead) bad = bad " loop " cur " has no block at its header" }
	NR == 1 || $1 == "end" { next }
	$1 == "module" { close_loop(); cur = ""; inmod = 1; flo = -1; next }
	$1 == "f" { close_loop(); cur = ""; if (!inmod || NF != 3) bad = bad " f at " NR; flo = hex($2); fhi = hex($3); next }
	$1 == "loop" {
		close_loop()
		if (NF != 8 || $2 != n) bad = bad " id " $2 " at " NR
		h = hex($3)
		if (flo < 0 || h < flo || h >= fhi) bad = bad " header of " $2 " outside its f"
		if ($4 == -1) { if ($5 != 0) bad = bad " depth of " $2 }
		else if (!($4 in depth) || $4 >= $2 || $5 != depth[$4] + 1 || fof[$4] != flo) bad = bad " parent of " $2
		depth[$2] = $5; fof[$2] = flo; cur = $2; nb = 0; athead = 0; n++; next
	}
	$1 == "b" { if (cur == "" || NF != 3 || hex($2) >= hex($3)) bad = bad " b at " NR
		nb++; if (hex($2) == h) athead = 1; next }
	$1 == "e" { if (cur == "" || NF != 2 || hex($2) < flo || hex($2) >= fhi) bad = bad " e at " NR; next }
	{ bad = bad " line " NR }
	END { close_loop(); print (n > 0 && bad == "") ? "ok" : "bad:" bad }' "$map")" ok \
	"the map is well formed: ids, parents, depths, functions and blocks agree"

# The program's own loops, named by its symbol table: main's, nest's two
# (the inner nested in the outer) and single's. "function depth
# parent-function first-line file" each.
nm --defined-only "$p" >"$TMP/nm"
awk -v prog="$p" '
	function hex(s,   i, v) {
		v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function fn(off,   i, best) {
		best = "?"
		for (i = 1; i <= nsym; i++) if (addr[i] <= off && (best == "?" || addr[i] > baddr)) { best = name[i]; baddr = addr[i] }
		return best
	}
	FNR == NR { if ($2 ~ /^[tT]$/) { nsym++; addr[nsym] = hex($1); name[nsym] = $3 }; next }
	$1 == "module" { mine = ($2 == prog) }
	mine && $1 == "loop" { f[$2] = fn(hex($3)); n = split($8, parts, "/")
		print f[$2], $5, ($4 == -1 ? "-" : f[$4]), $6, parts[n] }
	' "$TMP/nm" "$map" | sort >"$TMP/mine"
outer=$(line_of "$src" '/\* NEST-OUTER')
inner=$(line_of "$src" '/\* NEST-INNER')
single=$(line_of "$src" '/\* SINGLE')
is "$(grep -v '^main ' "$TMP/mine" | tr '\n' '|')" \
	"nest 0 - $outer loop_nest.c|nest 1 nest $inner loop_nest.c|single 0 - $single loop_nest.c|" \
	"the map holds nest's outer loop, its inner loop nested in it, and single's loop, at their lines"
is "$(grep -c '^main 0 - ' "$TMP/mine")" 1 "and main's loop"
is "$(grep -c "^module $TOP/build/progs/loop_nest\$" "$map")" 1 "the program's module is named by its path, once"
grep -q '^module .*libc\.so' "$map"; ok $? "loops of the libraries that ran are in the map too"
[ -z "$(ls "$TMP/l/cfg" | grep -v '\.witch$' | grep -v '^loops\.map$')" ]; ok $? "DIR/cfg holds the counting run's profiles and the map, no log"

# Stdin is saved and given to both runs: sum's loop runs only with a count.
echo 1000 | "$WITCH" spy -q --tool=loop -o "$TMP/s" -- "$PROGS/cpi_runs" >"$TMP/s.out" 2>/dev/null
st_s=$?
awk -v prog="$PROGS/cpi_runs" '$1 == "module" { mine = ($2 == prog) } mine && $1 == "loop" { print $6 }' \
	"$TMP/s/cfg/loops.map" | grep -qx "$(line_of "$TOP/tests/progs/cpi_runs.c" 'cpi: sum loop')"
ok $? "piped stdin reached the counting run: sum's loop is in the map"

PATH=$TMP/bin:$PATH "$WITCH" spy -q --tool=loop --no-follow -o "$TMP/nf" -- "$p" >/dev/null 2>&1
is "$(tail -n 2 "$TMP/vg.args" | grep -c -- '--trace-children=no --witch-follow=no')" 2 "--no-follow: in both runs"

# A program Valgrind cannot run fails in run 1: one line, exit 2, no run 2.
"$WITCH" spy --tool=loop -o "$TMP/x" -- "$PROGS/spy_avx512" >/dev/null 2>"$TMP/x.err"
is "$?,$(wc -l <"$TMP/x.err" | tr -d ' ')" 2,1 "Valgrind cannot run it: one line, exit 2"
like "$(cat "$TMP/x.err")" '^witch spy: Valgrind cannot run .*spy_avx512' "the line says why"
[ ! -e "$TMP/x/cfg/loops.map" ]; ok $? "and no map is written"

# The loop run: once the Valgrind tool runs --witch-tool=loop.
if ls "$TMP/l" | grep -q '\.witch$'; then
	is "$st" 0 "the loop run's exit status is the program's"
	is "$(cat "$TMP/l.out")" "$("$p" 30)" "its output passes through, once"
	like "$(cat "$TMP/l.err")" "^witch spy: 1 profile in $TMP/l" "one summary line"
	is "$(wc -l <"$TMP/l.err" | tr -d ' ')" 1 "and nothing else on stderr"
	is "$(sed -n 's/^tool //p' "$TMP/l"/*.witch)" loop "the profile is of tool loop"
	is "$st_s,$(cat "$TMP/s.out")" "3,$(echo 1000 | "$PROGS/cpi_runs")" "piped stdin reached the loop run too"
else
	skip "the loop run's exit status, output and profile: the Valgrind tool does not run --witch-tool=loop yet"
fi
done_testing
