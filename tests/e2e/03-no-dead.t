#!/bin/sh
# A program whose stores are all read before being overwritten: dead
# fraction at most 5 %.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

"$WITCH" record --quiet --rate=1000 -o "$TMP/p" -- "$PROGS/nodead" >/dev/null
ok $? "witch record runs nodead"
"$WITCH" report --format=json "$TMP/p" >"$TMP/r.json"
within "$(json "$TMP/r.json" '.totals.redundancy')" 0 0.05 "dead fraction"
within "$(json "$TMP/r.json" '.totals.traps')" 200 1000000 "enough traps to judge"
done_testing
