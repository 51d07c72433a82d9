#!/bin/sh
# witch spy --tool=load (LoadSpy) is exact: loading unchanged data again is
# 8N redundant bytes (sum1 -> sum2); loading changed data is 8N used bytes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spy-lib.sh"

p=$PROGS/spy_load
spy_run load "$p" "$TMP/l"
is "$(spy_sum "$TMP/l.pairs" sum1 sum2 | cut -d' ' -f1,2)" "8000 0" \
	"sum2 loads what sum1 loaded: exactly 8N redundant bytes"
is "$(spy_sum "$TMP/l.pairs" sum2 sum3 | cut -d' ' -f1,2)" "0 8000" \
	"sum3 loads values changed since: exactly 8N used bytes"
is "$(awk '$2 == "sum1" && $1 != "?"' "$TMP/l.pairs" | wc -l)" 0 "sum1's loads are the first ones"

"$WITCH" report --format=json --top=0 "$TMP/l" >"$TMP/r.json"
is "$(json "$TMP/r.json" .tool)" loadspy "JSON tool is loadspy"
is "$(json "$TMP/r.json" '.pairs[0].watch[0].function + " " + .pairs[0].trap[0].function')" \
	"sum1 sum2" "the top pair is sum1 REDUNDANTLY_LOADED_BY sum2"
within "$(json "$TMP/r.json" .totals.stats.bytes_accessed)" 24000 10000000 \
	"bytes loaded count at least the program's 24N"

# 16-byte loads: over two earlier loads, one event each; over one, one
# event of 16 bytes, used if any byte changed.
spy_run load "$PROGS/spy_loadvec" "$TMP/v"
is "$(spy_sum "$TMP/v.pairs" evens wide | cut -d' ' -f1-3)" "4000 0 500" \
	"a 16-byte load over two earlier loads: the even halves, 4N redundant bytes in N/2 events"
is "$(spy_sum "$TMP/v.pairs" odds wide | cut -d' ' -f1-3)" "4000 0 500" "and the odd halves"
is "$(spy_sum "$TMP/v.pairs" wide wide2 | cut -d' ' -f1-3)" "8000 0 500" \
	"16 bytes over one earlier 16-byte load: 8N redundant bytes in N/2 events"
is "$(spy_sum "$TMP/v.pairs" wide2 wide3 | cut -d' ' -f1-3)" "0 8000 500" \
	"half of each 16 bytes changed: the whole load is used, 8N bytes"
done_testing
