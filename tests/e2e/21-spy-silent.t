#!/bin/sh
# witch spy --tool=silent (RedSpy) is exact: re-storing the same N longs is
# 8N silent bytes (first -> same); storing new values is 8N used bytes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spy-lib.sh"

p=$PROGS/spy_silent
spy_run silent "$p" "$TMP/s"
is "$(cat "$TMP/s.out")" -492 "its output is -492"
is "$(spy_sum "$TMP/s.pairs" first same | cut -d' ' -f1,2)" "8000 0" \
	"same() rewrites first()'s values: exactly 8N silent bytes"
is "$(spy_sum "$TMP/s.pairs" same changed | cut -d' ' -f1,2)" "0 8000" \
	"changed() writes new values over same()'s: exactly 8N used bytes"
is "$(awk '$1 == "?" && ($2 == "first" || $2 == "same" || $2 == "changed")' "$TMP/s.pairs" | wc -l)" 0 \
	"nothing outside the program wrote the array before"

"$WITCH" report --format=json --top=0 "$TMP/s" >"$TMP/r.json"
is "$(json "$TMP/r.json" .tool)" redspy "JSON tool is redspy"
is "$(json "$TMP/r.json" '.pairs[0].watch[0].function + " " + .pairs[0].trap[0].function')" \
	"first same" "the top pair is first REDUNDANTLY_WRITTEN_BY same"
within "$(json "$TMP/r.json" .totals.stats.bytes_accessed)" 24000 1000000 \
	"bytes stored count at least the program's 24N"
done_testing
