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
# wide is the exception on purpose: most samples land before its rep
# string instruction or 16-byte store, and must stand for all of its
# bytes, not for the first (which are the ones dead, not silent, not
# redundant). Its 16-byte store gets nearly all of the samples and the
# 8-byte store after it nearly none, so there only the verdicts are
# checked.
# Under --watch=pages the 5 points are not met yet (listing2 and silentmix
# came 6-16 points off): those checks are TAP TODOs there, run and
# reported every time.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spy-lib.sh"
needs_debug_registers

# compare CRAFT PROGRAM SAMPLED_ARGS SPY_ARGS: record and spy on the
# program, compare into $cmp. The sampled run repeats the same work longer
# (fractions do not depend on how often it repeats; the sample count does),
# at 4000 Hz for thousands of samples.
# The spy runs once per craft, program and arguments: checks that differ
# only in record_opts share its profile.
compare() {
	craft=$1 prog=$2 sargs=$3 eargs=$4 mode="${3%% *}$(echo $record_opts | tr -d ' =-')"
	truth="$TMP/e-$craft-$prog-${3%% *}"
	cmp="$TMP/c-$craft-$prog-$mode.json"
	"$WITCH" record --quiet --craft="$craft" --rate=4000 $record_opts -o "$TMP/s-$craft-$prog-$mode" -- "$PROGS/$prog" $sargs >/dev/null
	ok $? "witch record --craft=$craft $record_opts $prog $sargs"
	if [ ! -d "$truth" ]; then
		"$WITCH" spy --quiet --tool="$craft" -o "$truth" -- "$PROGS/$prog" $eargs >/dev/null
		ok $? "witch spy --tool=$craft $prog $eargs"
	fi
	"$WITCH" compare --format=json "$TMP/s-$craft-$prog-$mode" "$truth" >"$cmp"
	ok $? "witch compare $craft $prog $mode"
}

# check ...: compare, then the redundancy within 5 points of the truth and
# 4 of its top 5 pairs found (all when it has fewer).
check() {
	compare "$@"
	within_todo_with_pages "$(json "$cmp" '.difference_points | if . < 0 then -. else . end')" 0 5 \
		"$prog $mode: sampled $craft redundancy within 5 points of the truth"
	top=$(json "$cmp" '.top')
	need=$((top < 4 ? top : 4))
	within "$(json "$cmp" '.found')" "$need" 5 \
		"$prog $mode: the sampled run found $need or more of the truth's top $top pairs"
}

# check_verdicts ...: compare, then the verdicts at the watched sites within
# 5 points of the truth's there (for a program whose samples weigh its
# sites unlike the truth does).
check_verdicts() {
	compare "$@"
	within_todo_with_pages "$(json "$cmp" '(.reweighted_redundancy - .reweighted_reference) * 100 | if . < 0 then -. else . end | . * 1000 | round / 1000')" 0 5 \
		"$prog $mode: sampled $craft verdicts at the watched sites within 5 points of the truth's"
}

record_opts=
check dead listing2 "" 40
check silent silentmix "" 4
check load loadmix "" 3
# wide's samples are to land in the divisions before its accesses, most of
# them further than the stores' default reach of 8 instructions, which
# drops them: with it, silent stos came 4.4-6.9 points under the truth
# (7 of 8 runs beyond 5, at e77a494 as after it), with --reach=0
# 1.1-1.2. What is checked here is the walk's draw over wide accesses:
# first with --spread=1, each sample taken by the next access.
record_opts="--reach=0 --spread=1"
check dead wide "stos 25000000" "stos 100000"
check silent wide "stos 25000000" "stos 100000"
check load wide "movs 25000000" "movs 100000"
check_verdicts dead wide "vstore 25000000" "vstore 100000"
check_verdicts silent wide "vstore 25000000" "vstore 100000"
# The default spread, 16, draws among the next 16 accesses, each element
# of a rep string instruction one of them: counted as one, the store after
# wide's rep stos took half the samples (silent 47 % for the truth's 97 %).
# With the elements counted, 1.4-1.6 points off for silent, under 1 for
# dead and load (two runs each).
record_opts=--reach=0
check dead wide "stos 25000000" "stos 100000"
check silent wide "stos 25000000" "stos 100000"
check load wide "movs 25000000" "movs 100000"
done_testing
