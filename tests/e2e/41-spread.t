#!/bin/sh
# --spread=N: a timer sample stands for one of the next N accesses of the
# wanted kind, drawn at random, not the next one. neighbours stores to a[]
# (dead) right after slow work and to b[] (used) right after that: half of
# the bytes it stores are dead. Samples land in the slow work, so taken by
# the next store they judge a[] nearly always (97.6-99.2 % dead in three
# runs on a clean clone); drawn among the next 16 stores (8 of each), a[]
# and b[] alike (47.8-50.6 %). With ~350 verdicts a binomial 50 % has a spread of ~2.7
# points: 35-65 is over 5 of them.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

"$PROGS/neighbours" 3000000 >"$TMP/n.out"
"$WITCH" record --quiet --craft=dead --rate=4000 --spread=1 -o "$TMP/one" -- "$PROGS/neighbours" 3000000 >"$TMP/w.out"
ok $? "witch record --spread=1 neighbours"
cmp -s "$TMP/n.out" "$TMP/w.out"
ok $? "same output"
"$WITCH" record --quiet --craft=dead --rate=4000 -o "$TMP/s16" -- "$PROGS/neighbours" 3000000 >"$TMP/w.out"
ok $? "witch record neighbours (spread 16 by default)"
cmp -s "$TMP/n.out" "$TMP/w.out"
ok $? "same output with the draw"

"$WITCH" report --format=json "$TMP/one" >"$TMP/one.json"
"$WITCH" report --format=json "$TMP/s16" >"$TMP/s16.json"
within "$(json "$TMP/one.json" '100 * .totals.redundancy')" 90 100 \
	"the next store after the slow work is a[]'s (dead %)"
within "$(json "$TMP/s16.json" '100 * .totals.redundancy')" 35 65 \
	"spread 16 draws among a[] and b[] alike (dead %)"
is "$(json "$TMP/one.json" '.spread')" 1 "JSON: spread 1"
is "$(json "$TMP/s16.json" '.spread')" 16 "JSON: spread 16 by default"
like "$("$WITCH" report "$TMP/s16" | head -n 1)" "timer sampling at 4000 Hz, each sample one of the next 16 stores" \
	"the report says how samples were drawn"
grep -q '^spread 16$' "$TMP"/s16/*.witch
ok $? "the profile says spread 16"

# Passing over accesses sets at most 2 breakpoints of its own (probe.c's
# PASS_BREAKPOINTS): where one more would need one (a loop's conditional
# jump, whose flags are not yet computed), the draw is made again among the
# accesses passed. Breakpoints per sample on demo, whose stores are in
# loops: 1.32 with spread 1 and 2.67 with 16 in one run; 6.24 with 16 and
# no limit, a breakpoint for every jump passed.
for n in 1 16; do
	"$WITCH" record --quiet --craft=dead --rate=1000 --spread=$n -o "$TMP/demo$n" -- "$PROGS/demo" 1500 >/dev/null
	ok $? "witch record --spread=$n demo"
	"$WITCH" report --format=json "$TMP/demo$n" >"$TMP/demo$n.json"
done
per_sample() { json "$1" '.totals.stats.probe_traps / .totals.stats.samples * 1000 | round / 1000'; }
b1=$(per_sample "$TMP/demo1.json") b16=$(per_sample "$TMP/demo16.json")
within "$(awk -v a="$b1" -v b="$b16" 'BEGIN { printf "%.3f\n", b - a }')" -1 2 \
	"--spread=16 sets at most 2 breakpoints a sample more than --spread=1 ($b16 and $b1)"

# Weights differ: the runs are not merged.
mkdir -p "$TMP/both"
cp "$TMP"/one/*.witch "$TMP/both/a.witch"
cp "$TMP"/s16/*.witch "$TMP/both/b.witch"
"$WITCH" report "$TMP/both" >/dev/null 2>"$TMP/err"
is $? 1 "profiles of different spreads are not merged"
like "$(cat "$TMP/err")" "--spread=16 but .* with --spread=1; their weights differ" "and the error says why"
is "$(wc -l <"$TMP/err")" 1 "in one line"

# A profile from before spread existed reads as spread 1.
grep -v '^spread ' "$TMP"/s16/*.witch | awk '$1 == "end" { $2 = NR - 1 } { print }' >"$TMP/old.witch"
"$WITCH" report --format=json "$TMP/old.witch" >"$TMP/old.json"
is "$(json "$TMP/old.json" '.spread')" 1 "a profile without a spread line is spread 1"

# Bad input: one line, exit 2.
refused_record_options "$PROGS/neighbours" --spread=0 --spread=65 --spread=x "--spread=4 --source=pmu"

# The runtime holds WITCH_SPREAD to the CLI's range too: a million made
# every sample walk in its handler for good (the program never ended).
mkdir "$TMP/env"
bounded 60 env LD_PRELOAD="$TOP/build/lib/witch/libwitch.so" WITCH_CRAFT=dead WITCH_OUT="$TMP/env" \
	WITCH_RATE=4000 WITCH_SPREAD=1000000 "$PROGS/neighbours" 300000 >/dev/null
ok $? "WITCH_SPREAD=1000000 set by hand: the program ends"
grep -q '^spread 16$' "$TMP"/env/*.witch
ok $? "and its profile says the spread it used: the default, 16"
done_testing
