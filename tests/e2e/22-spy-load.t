#!/bin/sh
# witch spy --tool=load (LoadSpy) is exact: loading unchanged data again is
# 8N redundant bytes (sum1 -> sum2); loading changed data is 8N used bytes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spy-lib.sh"

p=$PROGS/spy_load
"$WITCH" spy --quiet --tool=load -o "$TMP/l" -- "$p" >"$TMP/out"
ok $? "witch spy --tool=load runs spy_load"
is "$(cat "$TMP/out")" "$("$p")" "the program's output passes through"
spy_pairs "$p" "$TMP/l" >"$TMP/pairs"
is "$(spy_sum "$TMP/pairs" sum1 sum2 | cut -d' ' -f1,2)" "8000 0" \
	"sum2 loads what sum1 loaded: exactly 8N redundant bytes"
is "$(spy_sum "$TMP/pairs" sum2 sum3 | cut -d' ' -f1,2)" "0 8000" \
	"sum3 loads values changed since: exactly 8N used bytes"
is "$(awk '$2 == "sum1" && $1 != "?"' "$TMP/pairs" | wc -l)" 0 "sum1's loads are the first ones"

"$WITCH" report --format=json --top=0 "$TMP/l" >"$TMP/r.json"
is "$(json "$TMP/r.json" .tool)" loadspy "JSON tool is loadspy"
is "$(json "$TMP/r.json" '.pairs[0].watch[0].function + " " + .pairs[0].trap[0].function')" \
	"sum1 sum2" "the top pair is sum1 REDUNDANTLY_LOADED_BY sum2"
within "$(json "$TMP/r.json" .totals.stats.bytes_accessed)" 24000 10000000 \
	"bytes loaded count at least the program's 24N"
done_testing
