#!/bin/sh
# witch's handlers must not trip the program's watches. The unwinder reads
# the stack, and the loader's data too (dl_iterate_phdr's lock, libc's
# __libc_single_threaded), which programs read as well: a LoadCraft watch
# there was tripped by every handler, and since the trap found the program
# at a store (ignored by LoadCraft) the watch lived on and each trap's own
# unwinding queued the next; xz once ran forever that way, and short of
# that, one trap in 6 to 40 was witch's own (lost). Watches are paused
# while a handler unwinds or looks up a function.
. "$(dirname "$0")/lib.sh"
needs_debug_registers
command -v xz >/dev/null || { skip "xz is not installed (scripts/install-deps installs it)"; done_testing; exit 0; }

seq 1 400000 >"$TMP/in.txt"
xz -T1 -6 -c "$TMP/in.txt" >"$TMP/n.xz"
for i in 1 2 3; do
	bounded 120 "$WITCH" record --quiet --craft=load --rate=4000 -o "$TMP/p$i" -- xz -T1 -6 -c "$TMP/in.txt" >"$TMP/w.xz"
	is "$?" 0 "xz under --craft=load finishes (run $i)"
	cmp -s "$TMP/n.xz" "$TMP/w.xz"; ok $? "with the same output"
	"$WITCH" report --format=json "$TMP/p$i" >"$TMP/r$i.json"
	within "$(json "$TMP/r$i.json" '100 * .totals.stats.traps_lost / .totals.traps')" 0 1.5 \
		"traps lost (witch's own reads, or queued behind a freed watch): at most 1.5 % of traps"
done
done_testing
