#!/bin/sh
# Calling contexts tell apart the same function called from two lines: only
# the first call's stores are dead.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

src=$TOP/tests/progs/contexts.c
dead_line=$(line_of "$src" DEAD_CALL)
live_line=$(line_of "$src" LIVE_CALL)
"$WITCH" record --quiet --rate=1000 -o "$TMP/p" -- "$PROGS/contexts" >/dev/null
ok $? "witch record runs contexts"
"$WITCH" report --format=json --top=50 "$TMP/p" >"$TMP/r.json"
is "$(json "$TMP/r.json" '.pairs[0].watch[0].function')" put "top dead store is in put()"
is "$(json "$TMP/r.json" '.pairs[0].watch[0].inlined')" true "put() is shown as an inlined frame"
is "$(json "$TMP/r.json" '.pairs[0].watch[0].line')" "$(line_of "$src" PUT_LINE)" "at put()'s line"
is "$(json "$TMP/r.json" '.pairs[0].watch[1].function')" fill "inlined into fill()"
is "$(json "$TMP/r.json" '.pairs[0].watch[1].line')" "$(line_of "$src" FILL_CALL)" "at fill()'s call of put()"
is "$(json "$TMP/r.json" '.pairs[0].watch[2].line')" "$dead_line" "called from the DEAD_CALL line"
is "$(json "$TMP/r.json" '.pairs[0].watch[2].function')" main "caller is main"
is "$(json "$TMP/r.json" '.pairs[0].trap[0].function')" overwrite "killed by overwrite()"
live=$(jq -r --argjson l "$live_line" '[.pairs[] | select(.watch[1].function == "fill" and .watch[2].line == $l) | .share] | add // 0' "$TMP/r.json")
within "$live" 0 0.02 "fill() from the LIVE_CALL line has (almost) no waste"
# fill(p) is dead, overwrite(p) and fill(q) are read: a third of the stores.
within "$(json "$TMP/r.json" '.totals.redundancy')" 0.2 0.45 "dead fraction counts the live call as use"
done_testing
