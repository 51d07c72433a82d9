#!/bin/sh
# System calls read and write the program's memory, and the crafts judge
# those accesses as witch spy does (src/runtime/kernelio.c): read(2)
# overwriting stored bytes kills them, write(2) reading them uses them,
# SilentCraft's watch ends unjudged when the kernel writes, and LoadCraft's
# waits through the call for the next load. Before, the kernel's accesses
# were invisible: sysbuf write was 100 % dead (the next round's stores
# "killed" what write(2) had used) and sysbuf read 0 % (the loads after
# read(2) "used" stores it had overwritten).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spy-lib.sh"
needs_debug_registers

src="$(dirname "$0")/../progs/sysbuf.c"
read_line=$(line_of "$src" "read(in, buf, N)")

# record CRAFT MODE ROUNDS [OPTION]: the profile in $TMP/CRAFT-MODE, its
# JSON report in .json (OPTION: --watch=pages, which caps the rate at 250).
# The output is compared with one native run per mode and rounds.
record() {
	"$WITCH" record --quiet --craft="$1" --rate=4000 ${4:-} -o "$TMP/$1-$2" -- \
		"$PROGS/sysbuf" "$2" "$3" >"$TMP/out" 2>"$TMP/err"
	ok $? "witch record --craft=$1 ${4:-} sysbuf $2"
	native="$TMP/native-$2-$3"
	[ -f "$native" ] || "$PROGS/sysbuf" "$2" "$3" >"$native" 2>/dev/null
	cmp -s "$native" "$TMP/out"
	ok $? "sysbuf $2: same output as without witch"
	"$WITCH" report --format=json "$TMP/$1-$2" >"$TMP/$1-$2.json"
}
fraction() { json "$TMP/$1-$2.json" '.totals.redundancy // 0'; }
hits() { json "$TMP/$1-$2.json" '.totals.stats.syscall_buffer_hits'; }

# spy TOOL MODE: the exhaustive profile in $TMP/spy-TOOL-MODE (fewer
# rounds: the pattern is the same each round)
spy() {
	"$WITCH" spy --quiet --tool="$1" -o "$TMP/spy-$1-$2" -- "$PROGS/sysbuf" "$2" 20000 >/dev/null
	ok $? "witch spy --tool=$1 sysbuf $2"
}
spy_fraction() { "$WITCH" report --format=json "$TMP/spy-$1-$2" | jq -r '.totals.redundancy // 0'; }

# judged WATCH: each craft on sysbuf, watching with --watch=WATCH. With
# pages, the system calls themselves are caught (syscall user dispatch),
# and those whose buffers hold watched bytes run in witch's handler, where
# the result tells what the kernel wrote (kernelio.c). Before, the pages
# were exposed during the call and the kernel's accesses unseen there: dead
# read was 0 %, silent read 100 %.
judged() {
	record dead read 800000 --watch="$1"
	within "$(fraction dead read)" 0.90 1 "$1, dead, read: fill's stores are killed by read(2)"
	within "$(hits dead read)" 1 100000000 "$1, dead, read: watches judged at the system call"
	is "$(json "$TMP/dead-read.json" '.pairs[0].trap[0].function | test("read")')" true \
		"$1, dead, read: the killing context's leaf is libc's read"
	is "$(json "$TMP/dead-read.json" '.pairs[0].trap[1].line')" "$read_line" \
		"$1, dead, read: then the program's call of read (sysbuf.c:$read_line), not witch's wrapper"

	record dead write 1500000 --watch="$1"
	within "$(fraction dead write)" 0 0.10 "$1, dead, write: fill's stores are used by write(2)"

	# writev's iovecs are the program's: a bad array fails with EFAULT,
	# and witch reading it must not crash the program.
	record dead vector 1000000 --watch="$1"
	within "$(fraction dead vector)" 0 0.10 "$1, dead, vector: fill's stores are used by writev(2)"
	is "$(cat "$TMP/out")" 1000000 "$1, dead, vector: each writev of a bad iovec array failed with EFAULT"

	# The program's signals interrupt a read(2) that blocks on a watched
	# buffer (with pages, in kernelio.c's stub), and their handler makes
	# a system call on the same buffer: the read fails with EINTR and is
	# tried again (eintr), or the kernel restarts it and the program never
	# sees EINTR (restart, SA_RESTART), as natively.
	for mode in eintr restart; do
		record dead "$mode" 3000 "--watch=$1 --reach=0"
		within "$(sed -n 's/^alarms //p' "$TMP/err")" 100 1000000 \
			"$1, dead, $mode: the program's SIGALRM came"
		failed=$(sed -n 's/^eintr //p' "$TMP/err")
		if [ "$mode" = eintr ]; then
			within "$failed" 1 1000000 "$1, dead, eintr: reads waiting for the pipe failed with EINTR"
		else
			is "$failed" 0 "$1, dead, restart: no read failed with EINTR (SA_RESTART)"
		fi
		within "$(hits dead "$mode")" 1 100000000 "$1, dead, $mode: reads of the watched buffer judged"
	done

	# A watch that --watch=pages ended (at the brk) saw none of the loads
	# after it: no fault, step or system call may judge it later (they
	# did: fill's stores came out 56 % dead, killed by fill).
	record dead ended 400000 --watch="$1"
	within "$(fraction dead ended)" 0 0.10 "$1, dead, ended: fill's stores are used before read(2) overwrites them"
	is "$(json "$TMP/dead-ended.json" '[.pairs[] | select(.trap[0].function | test("read"))] | length')" 0 \
		"$1, dead, ended: no store killed by read(2)"

	# Nearly every watch is on fill's bytes and ends at read(2), so the
	# fraction is over a handful of judged watches at most, elsewhere
	# (none in most runs): what must hold is that none of fill's is silent.
	record silent read 800000 --watch="$1"
	diag "$1, silent, read: fraction $(fraction silent read) of $(json "$TMP/silent-read.json" '.totals.traps') traps"
	is "$(json "$TMP/silent-read.json" '[.pairs[] | select(.waste_bytes > 0 and .watch[0].function == "fill")] | length')" 0 \
		"$1, silent, read: read(2) wrote zeros in between, no store of fill's is silent"
	[ "$(fraction silent read)" = 0 ] || json "$TMP/silent-read.json" '.pairs[] | "# \(.waste_bytes) \(.use_bytes) \([.watch[].function] | join("<")) => \([.trap[].function] | join("<"))"'
	within "$(hits silent read)" 1 100000000 "$1, silent, read: watches ended at the system call"

	record load read 800000 --watch="$1"
	within "$(fraction load read)" 0.90 1 "$1, load, read: the zeros loaded again are redundant"
	within "$(hits load read)" 1 100000000 "$1, load, read: watches wait through read(2)"
}
if registers_only "system call buffers, debug registers"; then
	judged registers
fi
judged pages	# forced: runs on any machine

if registers_only "the spy's view of system call buffers"; then
	# The truth, as witch spy sees it.
	spy dead read
	within "$(spy_fraction dead read)" 0.45 0.55 \
		"spy, dead, read: 50 % in all, as the kernel's own stores are used (docs/record.md)"
	within "$(spy_pairs "$PROGS/sysbuf" "$TMP/spy-dead-read" |
		awk '$1 == "fill" { w += $3; u += $4 } END { print (w + u) ? w / (w + u) : 0 }')" 0.99 1 \
		"spy, dead, read: fill's stores are dead"
	spy dead write
	within "$(spy_fraction dead write)" 0 0.05 "spy, dead, write: used"
	spy silent read
	within "$(spy_fraction silent read)" 0 0.05 "spy, silent, read: not silent"
	spy load read
	within "$(spy_fraction load read)" 0.95 1 "spy, load, read: redundant"
fi
done_testing
