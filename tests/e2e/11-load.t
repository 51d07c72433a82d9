#!/bin/sh
# LoadCraft: repeated searches of an unchanging linked list are redundant
# loads (top pair, >= 80 %); a streaming read of fresh data is not (<= 10 %);
# counters incremented in memory (read-modify-write) never load the same
# value twice (witch once compared what the increment wrote, and called
# every one of them redundant).
. "$(dirname "$0")/lib.sh"
needs_debug_registers

src=$TOP/tests/progs/loadred.c
"$WITCH" record --quiet --craft=load --rate=1000 -o "$TMP/p" -- "$PROGS/loadred" >/dev/null
ok $? "witch record --craft=load"
"$WITCH" report --format=json --top=0 "$TMP/p" >"$TMP/r.json"
is "$(json "$TMP/r.json" '.tool')" load "JSON tool says load"
is "$(json "$TMP/r.json" '.pairs[0].watch[0].function')" find "top pair: loads in find()"
top_line=$(json "$TMP/r.json" '.pairs[0].watch[0].line')
search=$(line_of "$src" SEARCH_LINE)
within "$top_line" "$search" "$((search + 1))" "top pair is on the search loop's lines"
within "$(json "$TMP/r.json" '.totals.redundancy')" 0.80 1.0 "load redundancy of the program"
stream=$(jq -r --argjson l "$(line_of "$src" STREAM_LINE)" '[.pairs[] | select(.watch[0].line == $l)] |
	(map(.waste_bytes) | add // 0) as $w | (map(.use_bytes) | add // 0) as $u |
	if $w + $u > 0 then $w / ($w + $u) else -1 end' "$TMP/r.json")
within_todo_with_pages "$stream" 0 0.10 "load redundancy of the streaming read"
within_todo_with_pages "$(json "$TMP/r.json" '.totals.stats.stores_ignored')" 1 1e12 "stores between loads are ignored, not judged"
"$WITCH" report "$TMP/p" >"$TMP/r.txt"
like "$(cat "$TMP/r.txt")" 'find .*REDUNDANTLY_LOADED_BY.* find' "text report: REDUNDANTLY_LOADED_BY"

"$WITCH" record --quiet --craft=load --rate=4000 -o "$TMP/rmw" -- "$PROGS/rmwcount" >/dev/null
ok $? "witch record --craft=load rmwcount"
"$WITCH" report --format=json "$TMP/rmw" >"$TMP/rmw.json"
within "$(json "$TMP/rmw.json" ".totals.traps")" 5 1e12 "the increments' loads were judged"
within "$(json "$TMP/rmw.json" '.totals.redundancy')" 0 0.05 "an increment's load is not redundant"
done_testing
