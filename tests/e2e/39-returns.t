#!/bin/sh
# A timer sample stands for the next access of the wanted kind, wherever
# the thread makes it: the walk follows returns (and, for stores, calls).
# aftercall stores right after a call to a slow function that stores
# nothing, and right after the same code inlined; half of the bytes stored
# are dead. When the walk stopped at the return, 88 % of the samples found
# no store and the sampled dead fraction was 7 % against 49 %. The call and
# the loop add time before the first store, so the sampled fraction leans
# above half: +0.3 to +13.7 points in 70 runs beside a busy loop, mostly
# under 6. The check allows 25, halfway to the old walk's 42.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

"$WITCH" record --quiet --craft=dead --rate=4000 -o "$TMP/s" -- "$PROGS/aftercall" 20000000 >/dev/null
ok $? "witch record --craft=dead aftercall"
"$WITCH" spy --quiet --tool=dead -o "$TMP/e" -- "$PROGS/aftercall" 100000 >/dev/null
ok $? "witch spy --tool=dead aftercall"
"$WITCH" report --format=json "$TMP/s" >"$TMP/r.json"
within "$(json "$TMP/r.json" '100 * .totals.stats.samples_no_access / .totals.stats.samples')" 0 10 \
	"aftercall: at most 10 % of the samples find no store"
"$WITCH" compare --format=json "$TMP/s" "$TMP/e" >"$TMP/c.json"
ok $? "witch compare"
within "$(json "$TMP/c.json" '.difference_points | if . < 0 then -. else . end')" 0 25 \
	"aftercall: sampled dead fraction within 25 points of the truth"
done_testing
