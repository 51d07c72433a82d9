#!/bin/sh
# Regressions: libunwind blocks every signal around its locks. When witch's
# sigprocmask wrapper unblocked witch's own signals there, a sample could
# interrupt the unwinder holding its lock and deadlock (seen on fig2 at
# 2000 Hz). Both witch's own unwinding and a program's are checked.
#
# A program that unwinds itself runs libunwind's code, where the probe's
# breakpoint then waits; witch's handlers run the same code to unwind, and
# before the probe's breakpoint was paused with the watches there, each
# handler tripped it dozens of times: a signal a trap, most of them lost,
# and at --spread=16 one run in 10 to 20 crawled for good with 15000 traps
# queued. Lost traps were 3-6 % of all traps in the runs that ended (49-96
# a run), against 0.2-1.2 % with it paused.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

for i in 1 2 3; do
	bounded 120 "$WITCH" record --quiet --rate=4000 -o "$TMP/p$i" -- "$PROGS/fig2" 20 >/dev/null
	is "$?" 0 "fig2 at 4000 Hz finishes (run $i)"
done
"$PROGS/unwinds" >"$TMP/n.out"
bounded 120 "$WITCH" record --quiet --rate=4000 -o "$TMP/u" -- "$PROGS/unwinds" >"$TMP/w.out"
is "$?" 0 "a program using libunwind itself finishes at 4000 Hz"
cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "with the same output"
for i in 1 2 3 4; do
	bounded 60 "$WITCH" record --quiet --rate=4000 --spread=16 -o "$TMP/s" -- "$PROGS/unwinds" >"$TMP/w.out"
	is "$?" 0 "and at --spread=16 (run $i)"
	cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "with the same output"
done
"$WITCH" report --format=json "$TMP/s" >"$TMP/all.json"	# the four runs together
within "$(json "$TMP/all.json" '.totals.stats | 100 * .traps_lost / (.traps + .probe_traps)')" 0 2 \
	"traps lost: at most 2 % of all traps (witch's handlers trip no breakpoint of the probe's)"
done_testing
