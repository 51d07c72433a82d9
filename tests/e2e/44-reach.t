#!/bin/sh
# --reach=N: a timer sample stands for the first access of the wanted kind
# at most N instructions after where it landed, or for none. gaps stores
# as many bytes dead (close together, dense()) as used (each after 56
# nops, sparse()): the truth is 50 % dead. A sample taken by the next
# store wherever it is gives each store the time since the one before,
# sparse()'s more: with no limit the dead fraction came out 28-30 % (three
# runs); within 8 instructions a sparse() store gets the time of 8 nops,
# little, and it came out 85-89 %. Neither is the truth: the reach weighs
# accesses by the time of the few instructions before them, and nops are
# faster than dense()'s loop. The check is the direction and size of the
# change (spread of each fraction: ~2-3 points).
. "$(dirname "$0")/lib.sh"
needs_debug_registers

"$PROGS/gaps" 60000 >"$TMP/n.out"
"$WITCH" record --quiet --craft=dead --rate=4000 -o "$TMP/r8" -- "$PROGS/gaps" 60000 >"$TMP/w.out"
ok $? "witch record gaps (default reach)"
cmp -s "$TMP/n.out" "$TMP/w.out"
ok $? "same output"
"$WITCH" record --quiet --craft=dead --rate=4000 --reach=0 -o "$TMP/r0" -- "$PROGS/gaps" 60000 >"$TMP/w.out"
ok $? "witch record --reach=0 gaps"

"$WITCH" report --format=json "$TMP/r8" >"$TMP/r8.json"
"$WITCH" report --format=json "$TMP/r0" >"$TMP/r0.json"
r0=$(json "$TMP/r0.json" '100 * .totals.redundancy')
r8=$(json "$TMP/r8.json" '100 * .totals.redundancy')
within "$r0" 0 45 "no reach: sparse()'s stores take more of the samples than their share (dead %)"
within "$(awk -v a="$r8" -v b="$r0" 'BEGIN { print a - b }')" 20 100 \
	"reach 8: dense()'s stores take far more (dead % $r8 against $r0)"
within "$(json "$TMP/r8.json" '.totals.stats.samples_out_of_reach')" 1 1e9 \
	"samples that found no store within reach are counted"
is "$(json "$TMP/r8.json" '.reach')" 8 "JSON: reach 8 by default"
is "$(json "$TMP/r0.json" '.reach')" 0 "JSON: reach 0"
like "$("$WITCH" report "$TMP/r8" | head -n 1)" "timer sampling at 4000 Hz, each sample one of the next 16 stores within 8 instructions" \
	"the report says how far samples look"
like "$("$WITCH" report "$TMP/r8" | sed -n 4p)" "store out of reach [0-9]" \
	"and how many found nothing that near"

# Loads are sampled without a limit by default (core/contract.h says why); a
# --reach given applies to them too.
"$WITCH" record --quiet --craft=load -o "$TMP/l" -- "$PROGS/gaps" 100 >/dev/null
"$WITCH" report --format=json "$TMP/l" >"$TMP/l.json"
is "$(json "$TMP/l.json" '.reach')" 0 "JSON: --craft=load's reach is 0 by default"
"$WITCH" record --quiet --craft=load --reach=8 -o "$TMP/l8" -- "$PROGS/gaps" 100 >/dev/null
"$WITCH" report --format=json "$TMP/l8" >"$TMP/l8.json"
is "$(json "$TMP/l8.json" '.reach')" 8 "JSON: --craft=load --reach=8"
mkdir "$TMP/lenv"
bounded 60 env LD_PRELOAD="$TOP/build/lib/witch/libwitch.so" WITCH_CRAFT=load WITCH_OUT="$TMP/lenv" \
	WITCH_RATE=4000 "$PROGS/gaps" 100 >/dev/null
grep -q '^reach 0$' "$TMP"/lenv/*.witch
ok $? "the runtime's own default for loads, without WITCH_REACH, is 0 too"

# Weights differ: the runs are not merged.
mkdir -p "$TMP/both"
cp "$TMP"/r8/*.witch "$TMP/both/a.witch"
cp "$TMP"/r0/*.witch "$TMP/both/b.witch"
"$WITCH" report "$TMP/both" >/dev/null 2>"$TMP/err"
is $? 1 "profiles of different reaches are not merged"
like "$(cat "$TMP/err")" "with --reach=[08] but .* with --reach=[08]; their weights differ" "and the error says why"

# A profile from before reach existed reads as no limit.
grep -v '^reach ' "$TMP"/r8/*.witch | awk '$1 == "end" { $2 = NR - 1 } { print }' >"$TMP/old.witch"
"$WITCH" report --format=json "$TMP/old.witch" >"$TMP/old.json"
is "$(json "$TMP/old.json" '.reach')" 0 "a profile without a reach line has no limit"

# Bad input: one line, exit 2.
refused_record_options "$PROGS/gaps" --reach=-1 --reach=4097 --reach=x "--reach=4 --source=pmu"

# The runtime holds WITCH_REACH to the CLI's range.
mkdir "$TMP/env"
bounded 60 env LD_PRELOAD="$TOP/build/lib/witch/libwitch.so" WITCH_CRAFT=dead WITCH_OUT="$TMP/env" \
	WITCH_RATE=4000 WITCH_REACH=1000000 "$PROGS/gaps" 100 >/dev/null
ok $? "WITCH_REACH=1000000 set by hand: the program runs"
grep -q '^reach 8$' "$TMP"/env/*.witch
ok $? "and its profile says the reach it used: the default, 8"
done_testing
