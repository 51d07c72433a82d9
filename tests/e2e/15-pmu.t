#!/bin/sh
# witch record --source=pmu: the CPU's precise memory events sample stores
# and loads by count (Intel PEBS, AMD IBS), as in the WITCH paper. Where
# this machine has them, Listing 2 comes out as with the timer; where it
# has none (a VM), asking for them is refused in one line, with no profile
# left behind. The options that only make sense with one source are
# refused either way.
. "$(dirname "$0")/lib.sh"

if "$PROGS/pmu_probe" >"$TMP/probe"; then
	needs_debug_registers
	# 100000: a multiple of 16, which AMD's IBS would round it to.
	"$WITCH" record --quiet --source=pmu --period=100000 -o "$TMP/p" -- "$PROGS/listing2" \
		>"$TMP/out"
	ok $? "witch record --source=pmu runs listing2"
	"$WITCH" report --format=json "$TMP/p" >"$TMP/r.json"
	is "$(json "$TMP/r.json" '.source')" pmu "the profile says the PMU sampled"
	within "$(json "$TMP/r.json" '.totals.samples')" 1000 1000000000 "enough samples"
	is "$(json "$TMP/r.json" '.period')" 100000 "and every how many stores"
	is "$(json "$TMP/r.json" '.pairs[0].watch[0].function')" first "top pair: watched store in first()"
	is "$(json "$TMP/r.json" '.pairs[0].trap[0].function')" second "killed by a store in second()"
	within "$(json "$TMP/r.json" '.totals.redundancy')" 0.40 0.60 "dead fraction of listing2: half"
	like "$("$WITCH" report "$TMP/p")" 'PMU sampling every 100000 events' "the text report says how"
else
	skip "samples from a PMU: $(cat "$TMP/probe")"
	expect_error "--source=pmu without a PMU" \
		'--source=pmu: .*(no precise memory sampling|does not open|perf_event_open was refused)' \
		"$WITCH" record --source=pmu -o "$TMP/refused" -- "$PROGS/listing2"
	[ ! -e "$TMP/refused" ]; ok $? "and leaves no output directory"
fi
expect_error "unknown source" '--source=sometimes: give timer \(the default\) or pmu' \
	"$WITCH" record --source=sometimes -- "$PROGS/nodead"
expect_error "a rate for the PMU" '--rate counts CPU time.*--period=N accesses' \
	"$WITCH" record --source=pmu --rate=100 -- "$PROGS/nodead"
expect_error "pages for the PMU" 'drop --watch=pages' \
	"$WITCH" record --source=pmu --watch=pages -- "$PROGS/nodead"
expect_error "a PMU period too short" '--period=10 samples too often.*1000 or more' \
	"$WITCH" record --source=pmu --period=10 -- "$PROGS/nodead"
expect_error "a timer period too short" '--period=10 is too short for the timer' \
	"$WITCH" record --period=10 -- "$PROGS/nodead"
done_testing
