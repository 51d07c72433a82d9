#!/bin/sh
# witch spy's approximate comparison of floating point: relax() scales N
# doubles by 1 + 1e-5 per call, never the same bytes, always within the 1 %
# default tolerance. Three calls: 3 * 8N approximately silent bytes, none
# exactly; with --approx=0 they are all used. LoadSpy alike for the loads.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spy-lib.sh"

p=$PROGS/approx
n8=$((128 * 1024 * 8))
"$WITCH" spy --quiet --tool=silent -o "$TMP/s" -- "$p" 3 >/dev/null
ok $? "witch spy --tool=silent runs approx"
spy_pairs "$p" "$TMP/s" >"$TMP/pairs"
is "$(spy_sum "$TMP/pairs" main relax)" "0 0 131072 $n8" \
	"relax over main's values: 8N approximately silent bytes, one event per double"
is "$(spy_sum "$TMP/pairs" relax relax | cut -d' ' -f1,2,4)" "0 0 $((2 * n8))" \
	"relax over relax's values, twice: 16N approximately silent bytes"
"$WITCH" report --format=json "$TMP/s" >"$TMP/r.json"
ok $? "witch report reads approximate waste from a spy profile"
within "$(json "$TMP/r.json" '.totals.approx_waste_bytes')" $((3 * n8)) 1e18 \
	"the report's approximate waste holds them"

"$WITCH" spy --quiet --tool=silent --approx=0 -o "$TMP/s0" -- "$p" 3 >/dev/null
spy_pairs "$p" "$TMP/s0" >"$TMP/pairs0"
is "$(spy_sum "$TMP/pairs0" relax relax | cut -d' ' -f1,2,4)" "0 $((2 * n8)) 0" \
	"--approx=0: the same stores are all used"

"$WITCH" spy --quiet --tool=load -o "$TMP/l" -- "$p" 3 >/dev/null
ok $? "witch spy --tool=load runs approx"
spy_pairs "$p" "$TMP/l" >"$TMP/lpairs"
is "$(spy_sum "$TMP/lpairs" relax relax | cut -d' ' -f1,2,4)" "0 0 $((2 * n8))" \
	"relax loads what it loaded before, scaled: 16N approximately redundant bytes"
done_testing
