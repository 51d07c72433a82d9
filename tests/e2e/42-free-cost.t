#!/bin/sh
# The program's free finds out whether a watch is on the block it frees
# without a system call (src/runtime/heap.c). Blocking witch's signals
# around the check whenever a watch sat anywhere above the block would
# cost two rt_sigprocmask calls per free: millions here, and sqlite3
# under --craft=load twice as slow in bench/overhead. The test counts
# those calls.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

rounds=50000	# 50 frees each: 2.5 million
if ! command -v strace >/dev/null 2>&1; then
	skip "strace is not installed (scripts/install-deps installs it)"
elif registers_only "system calls per free"; then
	"$PROGS/freemany" $rounds >"$TMP/native"
	strace -f -c -e trace=rt_sigprocmask -o "$TMP/strace" \
		"$WITCH" record --quiet --craft=load --rate=4000 -o "$TMP/p" -- "$PROGS/freemany" $rounds >"$TMP/out"
	ok $? "witch record --craft=load freemany under strace"
	cmp -s "$TMP/native" "$TMP/out"
	ok $? "freemany: same output as without witch"
	calls=$(awk '$NF == "rt_sigprocmask" { print $(NF - 1) }' "$TMP/strace")
	# The CLI and the samples' and traps' handlers make a few thousand.
	within "${calls:-0}" 1 100000 "rt_sigprocmask calls for 2.5 million frees: a few thousand, not two per free"
	"$WITCH" report --format=json "$TMP/p" >"$TMP/r.json"
	within "$(json "$TMP/r.json" '.totals.stats.watchpoints_armed')" 10 100000000 \
		"freemany: the cold loads were watched"
fi
done_testing
