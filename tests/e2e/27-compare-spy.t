#!/bin/sh
# witch record against the truth: for each craft, a test program whose
# sampled redundancy must come within 5 points of `witch spy`'s exhaustive
# count on the same program, finding at least 4 of the truth's top 5 pairs
# (all of them when it has fewer) - issue 4's accuracy targets.
#
# The programs are ones where timer samples are unbiased: the wasteful and
# the useful accesses run identical code at the same cost per byte. Where
# they do not (a fast loop next to a slow one), time-based samples lean
# towards the slow one; bench/accuracy measures that on real programs.
# repstring is the exception on purpose: most samples land before its rep
# string instruction, and must stand for all of its elements, not for the
# first (which is the one dead, not silent, not redundant).
# Under --watch=pages the 5 points are not met yet (listing2 and silentmix
# came 6-16 points off): those checks are TAP TODOs there, run and
# reported every time.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spy-lib.sh"
needs_debug_registers

# check CRAFT PROGRAM SAMPLED_ARGS SPY_ARGS: the sampled run repeats the same
# work longer (fractions do not depend on how often it repeats; the sample
# count does), at 4000 Hz for thousands of samples.
check() {
	craft=$1 prog=$2 sargs=$3 eargs=$4
	"$WITCH" record --quiet --craft="$craft" --rate=4000 -o "$TMP/s-$craft-$prog" -- "$PROGS/$prog" $sargs >/dev/null
	ok $? "witch record --craft=$craft $prog"
	"$WITCH" spy --quiet --tool="$craft" -o "$TMP/e-$craft-$prog" -- "$PROGS/$prog" $eargs >/dev/null
	ok $? "witch spy --tool=$craft $prog"
	"$WITCH" compare --format=json "$TMP/s-$craft-$prog" "$TMP/e-$craft-$prog" >"$TMP/c-$craft-$prog.json"
	ok $? "witch compare $craft"
	within_todo_with_pages "$(json "$TMP/c-$craft-$prog.json" '.difference_points | if . < 0 then -. else . end')" 0 5 \
		"$prog: sampled $craft redundancy within 5 points of the truth"
	top=$(json "$TMP/c-$craft-$prog.json" '.top')
	need=$((top < 4 ? top : 4))
	within "$(json "$TMP/c-$craft-$prog.json" '.found')" "$need" 5 \
		"$prog: the sampled run found $need or more of the truth's top $top pairs"
}

check dead listing2 "" 40
check silent silentmix "" 4
check load loadmix "" 3
check dead repstring "stos 25000000" "stos 100000"
check silent repstring "stos 25000000" "stos 100000"
check load repstring "movs 25000000" "movs 100000"
done_testing
