#!/bin/sh
# WITCH Figure 2: three dead-store sites with dead bytes in a 3:2:1 ratio get
# shares of 50/33/17 % within 7 points (proportional attribution, §4.2).
. "$(dirname "$0")/lib.sh"
needs_debug_registers

"$WITCH" record --quiet --rate=2000 -o "$TMP/p" -- "$PROGS/fig2" 40 >/dev/null
ok $? "witch record runs fig2"
"$WITCH" report --format=json --top=20 "$TMP/p" >"$TMP/r.json"
share() {	# total share of pairs whose watched store is in function $1
	jq -r --arg f "$1" '[.pairs[] | select(.watch[0].function == $f) | .share] | add // 0 | . * 100' "$TMP/r.json"
}
within_todo_with_pages "$(share dead_a)" 43.0 57.0 "share of a[] (expected 50 %)"
within_todo_with_pages "$(share dead_b)" 26.3 40.3 "share of b[] (expected 33 %)"
within_todo_with_pages "$(share dead_x)" 9.7 23.7 "share of x[] (expected 17 %)"
is "$(jq -r '[.pairs[] | select(.watch[0].function == "dead_a") | .trap[0].function] | unique | join(",")' "$TMP/r.json")" \
	live_a "a[] is killed by live_a()"
within_todo_with_pages "$(json "$TMP/r.json" '.totals.redundancy')" 0.40 0.60 "half of the stores are dead"
done_testing
