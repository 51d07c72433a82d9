#!/bin/sh
# A program whose stores are all read before being overwritten: dead
# fraction at most 5 %.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

# 9000 rounds, three times nodead's default: since --reach (8 by default
# for stores) drops the samples that find no store that near, 3000 gave
# 193-214 traps against the floor of 200 below (a clean-clone CI run
# failed at 193).
"$WITCH" record --quiet --rate=1000 -o "$TMP/p" -- "$PROGS/nodead" 9000 >/dev/null
ok $? "witch record runs nodead"
"$WITCH" report --format=json "$TMP/p" >"$TMP/r.json"
within "$(json "$TMP/r.json" '.totals.redundancy')" 0 0.05 "dead fraction"
# --watch=pages samples at 250 Hz at most, and a watch there waits out its
# page's false faults: fewer traps, still enough to bound 5 %.
min_traps=200
[ "$WATCH_MODE" = pages ] && min_traps=30
within "$(json "$TMP/r.json" '.totals.traps')" $min_traps 1000000 "enough traps to judge"
done_testing
