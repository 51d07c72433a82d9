#!/bin/sh
# witch spy --tool=dead (DeadSpy) is exact: N doubles stored, overwritten
# unread, then read: 8N dead bytes (fill KILLED_BY overwrite), 8N used.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spy-lib.sh"

p=$PROGS/spy_dead
spy_run dead "$p" "$TMP/d"
is "$(cat "$TMP/d.out")" 999000 "its output is 999000"
is "$(ls "$TMP/d" | grep -c '\.witch$')" 1 "one profile, no other files left"
is "$(ls "$TMP/d" | wc -l)" 1 "no valgrind log left after a clean run"

is "$(spy_sum "$TMP/d.pairs" fill overwrite | cut -d' ' -f1,2)" "8000 0" \
	"fill KILLED_BY overwrite: exactly 8N dead bytes, no use"
is "$(spy_sum "$TMP/d.pairs" overwrite readback | cut -d' ' -f1,2)" "0 8000" \
	"overwrite read by readback: exactly 8N used bytes"
is "$(awk '$1 == "fill" && $2 != "overwrite"' "$TMP/d.pairs" | wc -l)" 0 "fill's stores pair with nothing else"

"$WITCH" report --format=json --top=0 "$TMP/d" >"$TMP/r.json"
ok $? "witch report reads the spy profile"
is "$(json "$TMP/r.json" .tool)" deadspy "JSON tool is deadspy"
is "$(json "$TMP/r.json" .source)" exhaustive "JSON source is exhaustive"
is "$(json "$TMP/r.json" '[.pairs[] | select(.watch[0].function == "fill" and .trap[0].function == "overwrite") | .waste_bytes] | add')" \
	8000 "the report's fill -> overwrite pairs hold 8000 bytes of waste"
is "$(json "$TMP/r.json" '.pairs[0].watch[0].function + " " + .pairs[0].trap[0].function')" \
	"fill overwrite" "the top pair is fill KILLED_BY overwrite"
is "$(json "$TMP/r.json" '.pairs[0].watch[0].line')" \
	"$(line_of "$TOP/tests/progs/spy_dead.c" 'a\[i\] = v;')" "source line of the dead store"
within "$(json "$TMP/r.json" .totals.stats.bytes_accessed)" 16000 1000000 \
	"bytes stored count at least the program's 16N"
is "$(json "$TMP/r.json" .totals.stats.samples)" 0 "no samples: every access was judged"
"$WITCH" report "$TMP/d" >"$TMP/r.txt"
like "$(cat "$TMP/r.txt")" 'DeadSpy' "the text report names DeadSpy"
like "$(cat "$TMP/r.txt")" 'fill .*KILLED_BY.* overwrite' "text report shows fill KILLED_BY overwrite"

# A push is an implicit store: over a pending store it kills it (exactly
# 8N bytes), over nothing pending it records nothing.
spy_run dead "$PROGS/spy_push" "$TMP/push"
is "$(spy_sum "$TMP/push.pairs" redzone redzone | cut -d' ' -f1,2)" "8000 0" \
	"a store KILLED_BY the push over it: exactly 8N dead bytes"
is "$(awk '$2 == "pushes"' "$TMP/push.pairs" | wc -l)" 0 "pushes over nothing pending: no pair"

# A forked child's profile starts empty: what the parent judged before the
# fork (and had not yet added to its pairs) stays in the parent's profile.
"$WITCH" spy --quiet --tool=dead -o "$TMP/f" -- "$p" fork >"$TMP/fout"
ok $? "witch spy --tool=dead runs spy_dead fork"
is "$(ls "$TMP/f" | grep -c '\.witch$')" 2 "two profiles: parent and child"
for f in "$TMP"/f/*.witch; do
	mkdir -p "$TMP/one" && rm -f "$TMP"/one/* && cp "$f" "$TMP/one/"
	spy_pairs "$p" "$TMP/one" >"$TMP/fpairs"
	is "$(spy_sum "$TMP/fpairs" fill overwrite | cut -d' ' -f1,2)" "8000 0" \
		"$(basename "$f"): fill KILLED_BY overwrite exactly 8N, its own work only"
done
done_testing
