#!/bin/sh
# Approximate floating-point redundancy: values that change by less than
# 0.01 % per step are >= 80 % approximately silent and <= 10 % exactly
# silent; with --approx=0 nothing is approximately silent.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

"$WITCH" record --quiet --craft=silent --rate=1000 -o "$TMP/p" -- "$PROGS/approx" >/dev/null
ok $? "witch record --craft=silent (default tolerance)"
"$WITCH" report --format=json "$TMP/p" >"$TMP/r.json"
within "$(json "$TMP/r.json" '.totals.approx_redundancy')" 0.80 1.0 "approximately redundant"
within "$(json "$TMP/r.json" '.totals.redundancy')" 0 0.10 "exactly redundant"
within "$(json "$TMP/r.json" '.pairs[0].approx_waste_bytes')" 1 1e18 "the pair carries approx_waste_bytes"
"$WITCH" report "$TMP/p" >"$TMP/r.txt"
like "$(cat "$TMP/r.txt")" 'approximately' "text report shows approximate redundancy"

"$WITCH" record --quiet --craft=silent --approx=0 --rate=1000 -o "$TMP/p0" -- "$PROGS/approx" >/dev/null
ok $? "witch record --approx=0"
"$WITCH" report --format=json "$TMP/p0" >"$TMP/r0.json"
is "$(json "$TMP/r0.json" '.totals.approx_waste_bytes')" 0 "--approx=0: nothing approximately redundant"
within "$(json "$TMP/r0.json" '.totals.redundancy')" 0 0.10 "--approx=0: still not exactly redundant"
"$WITCH" record --approx=2 -- "$PROGS/approx" 1 >/dev/null 2>"$TMP/err"
[ $? -ne 0 ]; ok $? "--approx=2 is refused"
like "$(cat "$TMP/err")" 'approx=2 is not a tolerance' "with a message"
done_testing
