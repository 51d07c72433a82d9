#!/bin/sh
# libwitchcausal.so on its own (no CLI, no report): driven with the
# environment of docs/causal.md and a line table from bench/causal-lines;
# predictions computed by bench/causal-predict.
#
#  - the program runs unchanged (output, exit status, death by a signal);
#    forks get their own profile or none, exec carries the preload;
#  - coz.h's ABI (the validation programs include the Debian header),
#    witch.h's hooks, latency points, breakpoint progress points (counted
#    with a hardware breakpoint or a uprobe; in worker threads too), end-to-end;
#  - virtual speedup: one thread, a line taking a fraction f of the time:
#    predicted ~ f*s; COZ Figure 1: speeding up a() predicts no more than
#    removing a() really gives; a pipeline whose hot line can really be
#    made 20 % faster: predicted vs measured.
. "$(dirname "$0")/lib.sh"

LIB=$TOP/build/lib/witch/libwitchcausal.so
LINES=$TOP/bench/causal-lines
PREDICT=$TOP/bench/causal-predict
SRC=$TOP/tests/progs

# Timing runs at the highest priority when permitted: the machine may be
# shared, and a program that waits for a core is not the program measured.
NICE=
[ "$(id -u)" = 0 ] && NICE="nice -n -20"
# table PROG [PROGRESS-LOC...]: the line table of a test program in $TMP/PROG.lines
table() { p=$1; shift; "$LINES" "$PROGS/$p" "$@" >"$TMP/$p.lines"; }
# line_id PROG MARKER: the id of the source line holding MARKER
line_id() {
	awk -F'\t' -v l="$1.c:$(line_of "$SRC/$1.c" "$2")" '$1 == "line" && $3 == l { print $2 }' "$TMP/$1.lines"
}
# causal DIR PROG [VAR=VALUE...] -- ARGS...: run PROG under the runtime.
# Without the delay budget: these tests are about what the experiments
# measure, and the budget only spaces them out (its own test is last).
causal() {
	d=$1 p=$2
	shift 2
	mkdir -p "$d"
	vars=WITCH_CAUSAL_DELAY_BUDGET=100
	while [ "$1" != -- ]; do vars="$vars $1"; shift; done
	shift
	# shellcheck disable=SC2086
	bounded 120 $NICE env LD_PRELOAD="$LIB" WITCH_OUT="$d" WITCH_CAUSAL_LINES="$TMP/$p.lines" $vars "$@"
}
field() { awk -F'\t' -v k="$2" '{ for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$1"; }
# predicted FILE... SPEEDUP: the program speedup (percent) at a line speedup
predicted() { s=$1; shift; "$PREDICT" "$@" | awk -v s="$s" '$1 == s { print $2 }'; }
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
# wall CMD...: seconds a command takes
wall() { s=$(date +%s.%N); $NICE "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc -l; }

# --- the program runs unchanged ----------------------------------------------
table causal_frac
"$PROGS/causal_frac" 0.5 300 >"$TMP/n.out"
causal "$TMP/a" causal_frac -- "$PROGS/causal_frac" 0.5 300 >"$TMP/w.out"
ok $? "causal_frac runs under the runtime"
cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "same output"
f=$(ls "$TMP"/a/causal.* 2>/dev/null | head -n 1)
ok $([ -n "$f" ] && [ -s "$f" ]; echo $?) "a profile causal.PID"
like "$(head -n 1 "$f")" "^witch-causal	version=1	pid=[0-9]+	host=[^	]+	command=.*causal_frac 0.5 300$" "header"
like "$(sed -n 2p "$f")" "^startup	time=[0-9]{18,}$" "startup time"
like "$(grep '^progress' "$f")" "name=.*causal_frac.c:[0-9]+	kind=throughput" "COZ_PROGRESS of coz.h registered (the ABI)"
like "$(grep -c '^experiment' "$f")" "^[1-9][0-9]*$" "experiments"
# (the table charges inlined code to its own file: a sample may land in coz.h)
like "$(grep '^samples	location=causal_frac' "$f" | head -n 1)" "^samples	location=causal_frac.c:[0-9]+	count=[0-9]+$" "samples per line"
# main's loop only calls hot() and cold(): its call lines hold no time of
# their own, and ran.
hl=$(line_of "$SRC/causal_frac.c" "hot(nh);")
like "$(grep "^callers	location=causal_frac.c:$hl	" "$f")" "^callers	location=causal_frac.c:$hl	count=[1-9][0-9]*$" \
	"the line that calls hot(): samples of the code it called"
like "$(tail -n 2 "$f" | head -n 1)" "^runtime	time=[0-9]+	wall=[0-9]+	delay-ns=[0-9]+	waited-for-cpu-ns=[0-9]+	paused-ns=[0-9]+	pauses=[0-9]+	oversleep-ns=[0-9]+	budget-held-ns=[0-9]+$" "runtime"
is "$(tail -n 1 "$f")" "end	status=exit:0	complete=1" "end: exit 0, complete"
ok $(ls -A "$TMP/a" | grep -q tmp; [ $? -ne 0 ]; echo $?) "no temporary file left"

causal "$TMP/st" causal_frac -- sh -c 'exit 3'
is $? 3 "exit status passes through"
is "$(tail -n 1 "$TMP"/st/causal.*)" "end	status=exit:3	complete=1" "and is recorded"
causal "$TMP/sg" causal_frac -- sh -c 'kill -SEGV $$' 2>/dev/null
is $? 139 "death by SIGSEGV passes through"
is "$(tail -n 1 "$TMP"/sg/causal.*)" "end	status=signal:11	complete=0" "and is recorded"

# fork: the shell's child (forked, or vforked and exec'd at once) runs
# causal_frac: a profile for the shell and one for the program.
causal "$TMP/fk" causal_frac -- sh -c "$PROGS/causal_frac 0.5 50; true" >/dev/null
within "$(ls "$TMP/fk" | wc -l)" 2 3 "fork: the shell's profile and its child's"
is "$(grep -l 'command=[^ ]*causal_frac 0.5 50$' "$TMP"/fk/causal.* | xargs tail -qn 1)" "end	status=exit:0	complete=1" "the child's program has its own, complete"
# exec: the image before and the image after share the pid.
causal "$TMP/ex" causal_frac -- sh -c "exec $PROGS/causal_frac 0.5 50" >/dev/null
is "$(ls "$TMP/ex" | wc -l)" 2 "exec: two profiles"
like "$(grep -l 'causal_frac 0.5 50' "$TMP"/ex/causal.* | xargs grep -l '^witch-causal.*command=.*causal_frac' | xargs ls)" "causal\.[0-9]+\.1$" "the exec'd image writes causal.PID.1"
is "$(cat "$TMP"/ex/causal.* | grep -c '^end	status=exec	complete=1$')" 1 "the image before exec ends with status=exec"
causal "$TMP/nf" causal_frac WITCH_NO_FOLLOW=1 -- sh -c "$PROGS/causal_frac 0.5 50; true" >/dev/null
is "$(ls "$TMP/nf" | wc -l)" 1 "WITCH_NO_FOLLOW: one profile"

# --- progress points -----------------------------------------------------------
# A `progress` record counts visits with an execute breakpoint, or with a
# uprobe under WITCH_CAUSAL_PROGRESS_COUNTER=uprobe (what the CLI sets where
# hardware breakpoints do not fire): each way this machine has is checked.
# Counts are exact: per experiment, the two counts of one visit can only
# straddle the start or the end, so the sums differ by at most one a
# thread and experiment.
counters=$(progress_counters)
# visits DIR NAME-REGEX: the visits of the matching throughput points in all experiments
visits() { awk -F'\t' -v n="$2" '$1 == "throughput-point" && $2 ~ n { s += substr($3, 7) } END { print s + 0 }' "$1"/causal.*; }
ploc=causal_frac.c:$(line_of "$SRC/causal_frac.c" "COZ_PROGRESS;")
table causal_frac "$ploc"
for how in ${counters:-breakpoint}; do
	causal "$TMP/bp-$how" causal_frac WITCH_CAUSAL_PROGRESS_COUNTER="$how" -- "$PROGS/causal_frac" 0.5 600 >/dev/null
	b=$(grep -c "^progress	name=$ploc	kind=breakpoint$" "$TMP/bp-$how"/causal.*)
	is "$b" 1 "$how: a breakpoint progress point from the line table"
	nb=$(visits "$TMP/bp-$how" "^name=$ploc\$")
	nc=$(visits "$TMP/bp-$how" "tests/progs/causal_frac.c")
	ne=$(grep -c '^experiment' "$TMP/bp-$how"/causal.*)
	diag "$how: visits $nb, coz.h counter $nc, $ne experiments"
	if [ -n "$counters" ]; then
		within "$nb" "$((nc - ne))" "$((nc + ne))" "$how: counts the visits the counter counts"
	else
		skip "counting visits: $("$PROGS/dr_probe"); $("$PROGS/uprobe_probe")"
	fi
	within "$nc" 100 600 "and they are visits of the 600 iterations"
done
# `progress` records that share a name are one point, their counts summed:
# the first addresses of hot() and cold(), each called once an iteration
# (a calibration file spares the calls that would size their loops).
hloc=causal_frac.c:$(line_of "$SRC/causal_frac.c" "frac: hot line")
cloc=causal_frac.c:$(line_of "$SRC/causal_frac.c" "frac: cold line")
table causal_frac "$hloc" "$cloc"
sed -i 's/^\(progress	0	[0-9a-f]*	\).*/\1both/' "$TMP/causal_frac.lines"
printf 'frac.hot 1\nfrac.cold 1\n' >"$TMP/calib"
for how in $counters; do
	causal "$TMP/two-$how" causal_frac WITCH_CAUSAL_PROGRESS_COUNTER="$how" CAUSAL_CALIB_FILE="$TMP/calib" \
		-- "$PROGS/causal_frac" 0.5 600 >/dev/null
	is "$(grep -c '^progress	name=both	kind=breakpoint$' "$TMP/two-$how"/causal.*)" 1 \
		"$how: two addresses of one name are one progress point"
	nb=$(visits "$TMP/two-$how" "^name=both\$")
	nc=$(visits "$TMP/two-$how" "tests/progs/causal_frac.c")
	ne=$(grep -c '^experiment' "$TMP/two-$how"/causal.*)
	diag "$how: visits of hot() and cold() $nb, coz.h counter $nc, $ne experiments"
	within "$nb" "$((2 * nc - 2 * ne))" "$((2 * nc + 2 * ne))" "$how: its visits are both addresses' counts summed"
done
# Threads inherit the counting event: the consumer thread of a pipeline
# visits the point, the main thread never does.
rloc=causal_real.c:$(line_of "$SRC/causal_real.c" "COZ_PROGRESS;")
table causal_real "$rloc"
[ -n "$counters" ] || skip "counting a worker thread's visits: $("$PROGS/dr_probe"); $("$PROGS/uprobe_probe")"
for how in $counters; do
	causal "$TMP/rt-$how" causal_real WITCH_CAUSAL_PROGRESS_COUNTER="$how" -- "$PROGS/causal_real" 0 400 >/dev/null
	nb=$(visits "$TMP/rt-$how" "^name=$rloc\$")
	nc=$(visits "$TMP/rt-$how" "tests/progs/causal_real.c")
	ne=$(grep -c '^experiment' "$TMP/rt-$how"/causal.*)
	diag "$how, worker thread: visits $nb, coz.h counter $nc, $ne experiments"
	within "$nc" 100 400 "$how: the worker thread visits the point in experiments"
	within "$nb" "$((nc - ne))" "$((nc + ne))" "$how: and its visits are counted"
done

table causal_latency
causal "$TMP/lat" causal_latency -- "$PROGS/causal_latency" 1500 >"$TMP/lat.out"
is "$(cat "$TMP/lat.out")" "1500 requests, sum 1124250" "witch.h program: same result"
grep '^latency-point' "$TMP"/lat/causal.* >"$TMP/lp"
like "$(head -n 1 "$TMP/lp")" "^latency-point	name=request	arrivals=[0-9]+	departures=[0-9]+	difference=-?[0-9]+$" "latency points (COZ_BEGIN/COZ_END)"
arr=$(field "$TMP/lp" arrivals | paste -sd+ | bc)
dep=$(field "$TMP/lp" departures | paste -sd+ | bc)
diag "arrivals $arr departures $dep"
# (per experiment: a request that arrives in one and departs in the next,
# or in the cool-off between, counts on one side only. The worker takes
# twice as long per request as the main thread: requests queue in the pipe
# and depart after the arrivals have ended, the more so when the threads
# share a core with another program: 0.68 and then 0.49 were seen with the
# other core busy)
within "$dep" "$((arr * 3 / 10))" "$((arr * 15 / 10 + 10))" "departures follow arrivals"
grep -q "kind=begin" "$TMP"/lat/causal.* && grep -q "name=served	kind=throughput" "$TMP"/lat/causal.*
ok $? "begin/end and named throughput points registered"

table causal_frac
id=$(line_id causal_frac "frac: hot line")
causal "$TMP/e2e" causal_frac WITCH_CAUSAL_END_TO_END=1 WITCH_CAUSAL_FIXED_LINE="$id" WITCH_CAUSAL_FIXED_SPEEDUP=50 -- "$PROGS/causal_frac" 0.5 400 >/dev/null
is "$(grep -c '^experiment' "$TMP"/e2e/causal.*)" 1 "end-to-end: one experiment"
like "$(grep '^experiment' "$TMP"/e2e/causal.*)" "selected=causal_frac.c:$(line_of "$SRC/causal_frac.c" "frac: hot line")	speedup=0.50" "with the fixed line and speedup"
grep -q "^throughput-point	name=end-to-end	delta=1$" "$TMP"/e2e/causal.*; ok $? "end-to-end point, delta=1"
rt=$(field "$TMP"/e2e/causal.* wall | tail -n 1)
du=$(grep '^experiment' "$TMP"/e2e/causal.* | tr '\t' '\n' | sed -n 's/^duration=//p')
dn=$(grep '^experiment' "$TMP"/e2e/causal.* | tr '\t' '\n' | sed -n 's/^delay-ns=//p')
wf=$(grep '^experiment' "$TMP"/e2e/causal.* | tr '\t' '\n' | sed -n 's/^waited-for-cpu-ns=//p')
diag "runtime $rt duration $du delay-ns $dn waited for a core $wf"
# half the time in the line, sped up by half: the run counts ~3/4 of the
# time it ran (time waiting for a core, other programs', is left out)
within "$(echo "100 * $du / ($rt - $wf)" | bc)" 65 85 "the duration is the run minus its virtual speedup"

# --- virtual speedup -----------------------------------------------------------
# One thread, a line taking a fraction f: predicted f*s, f being the share
# of the loop's CPU time the line really took in the run (causal_frac's
# CAUSAL_FRAC_SPLIT), not the F the program was asked for. It sizes its
# loops for F from a calibration at its start, and a VM's cores change
# speed for seconds at a time, so the share strays from F (0.457-0.567
# for F = 0.5): against F*s a single run can be 11 points off at +100 %,
# against the share they stay within a few points. What the report ranks
# lines by is the slope of those points (through 0), and the points err
# on their own: 30 runs, the other core busy or not, erred by at most 3.5
# points at +50 % and 4.3 at +100 %, yet one run in CI by 8.7 at +50 %;
# their slope erred by at most 0.035. So each point is checked within 12
# points, and the slope within 0.06 of the share.
# 8000 iterations (9 s natively), for 20-50 experiments a speedup.
for f in 0.5 0.25; do
	causal "$TMP/f$f" causal_frac CAUSAL_FRAC_SPLIT="$TMP/split$f" WITCH_CAUSAL_FIXED_LINE="$id" \
		WITCH_CAUSAL_SPEEDUPS=0,50,100 -- "$PROGS/causal_frac" "$f" 8000 >/dev/null
	share=$(cat "$TMP/split$f")
	within "$share" "$(echo "$f - 0.1" | bc)" "$(echo "$f + 0.1" | bc)" "f=$f: the hot line's share of the loop's time is about f"
	"$PREDICT" "$TMP"/f$f/causal.* | while read -r s p n; do diag "f=$f (share $share): line +$s% -> program +$p% ($n experiments)"; done
	for s in 50 100; do
		want=$(echo "$share * $s" | bc -l)
		within "$(predicted "$s" "$TMP"/f$f/causal.*)" "$(echo "$want - 12" | bc)" "$(echo "$want + 12" | bc)" \
			"f=$f, line +$s%: program +share*s ($(printf '%.1f' "$want"))"
	done
	slope=$(printf '%.3f' "$(echo "(50 * $(predicted 50 "$TMP"/f$f/causal.*) + 100 * $(predicted 100 "$TMP"/f$f/causal.*)) / 12500" | bc -l)")
	within "$slope" "$(echo "$share - 0.06" | bc)" "$(echo "$share + 0.06" | bc)" \
		"f=$f: the slope through 0 of program speedup over line speedup is the share"
done

# Progress visited every 11 ms: an experiment of ~50 ms would count 4 or 5
# visits depending on where it fell between them, so experiments start
# (and end) right after a visit (experiment.c, ALIGN_MAX_VISITS): at most
# 0.5 ms after it here, beside a busy loop too. Without that, 13-19 % of
# them started within 1.5 ms of a visit. (What such a run predicts is
# left to the f*s checks above: with 10-24 experiments at +50 %, single
# runs gave 18.0-31.3 for 25.)
causal "$TMP/slow" causal_frac CAUSAL_FRAC_VISITS="$TMP/visits" WITCH_CAUSAL_FIXED_LINE="$id" \
	WITCH_CAUSAL_SPEEDUPS=0,50 -- "$PROGS/causal_frac" 0.5 300 11 >/dev/null
aligned=$(awk -F'\t' 'FNR == NR { v[++nv] = $1; next }
	$1 == "experiment" { for (i = 2; i <= NF; i++) if (index($i, "start=") == 1) s[++ns] = substr($i, 7) }
	END { j = 1
		for (e = 2; e <= ns; e++) {	# the first waits for no visit
			while (j < nv && v[j + 1] <= s[e]) j++
			if (v[j] > s[e]) continue
			n++
			if (s[e] - v[j] < 1500000) k++
		}
		if (n >= 10) printf "%.0f", 100 * k / n }' "$TMP/visits" "$TMP"/slow/causal.*)
within "$aligned" 80 100 "visits every 11 ms: experiments start within 1.5 ms after one (%)"

# Eq. 6's correction for a line that runs all the time is ~1: the run's
# time T leaves out delays and waits for a core as the durations do (with
# the wall time it came to x0.3 on a loaded machine).
"$WITCH" report --format=json "$TMP/f0.5" >"$TMP/f.json" 2>/dev/null
within "$(json "$TMP/f.json" '.lines[0].phase_correction')" 0.7 1 "phase correction of an always-running line"

# COZ Figure 1: however much a() is sped up, the program gains at most what
# it could gain in this run (causal_fig1's CAUSAL_FIG1_TRUTH): ~4.8 % on two
# idle cores of equal speed; up to 50 % where a() shares its core with
# another program or runs on a slower virtual CPU, which this VM's host
# makes happen for seconds at a time. The truth of a separate native run
# is not that of the profiled one. a() and b() are pinned to a core each
# (two cores: the issue's machine): the test is about the delays, not
# about where the scheduler happens to start a thread.
table causal_fig1
ida=$(line_id causal_fig1 "fig1: line a")
pin="100 5 pin"
[ "$(nproc)" -ge 2 ] || pin=
# 6000 rounds (22 s natively), for 90-190 experiments a speedup: with
# 1000, some 20 each, the prediction at +100 % scattered from -9 to +16
# points around this run's truth, and a clean-clone CI run failed at +16
# (25.9 % for a truth of 9.8 %); with 3000, 7 recorded runs of this file
# scattered from -2.9 to +6.0 around it, and one failed (15.5 for a truth
# of 9.5 %).
# shellcheck disable=SC2086
causal "$TMP/fig1" causal_fig1 CAUSAL_FIG1_TRUTH="$TMP/fig1.truth" WITCH_CAUSAL_FIXED_LINE="$ida" WITCH_CAUSAL_SPEEDUPS=0,50,100 -- "$PROGS/causal_fig1" 6000 $pin >/dev/null
"$PREDICT" "$TMP"/fig1/causal.* | while read -r s p n; do diag "Figure 1: a() +$s% -> program +$p% ($n experiments)"; done
# The bound that matters is the upper one (coz predicted +20..47 % where
# the truth was 6 %). Below, a busy other core makes single experiments
# noisy: only a prediction of the program running twice as long counts as
# broken.
for s in 50 100; do
	truth=$(awk -v s="$s" '$1 == s { print $2 }' "$TMP/fig1.truth")
	bound=$(echo "if ($truth + 5 > 10) $truth + 5 else 10" | bc -l)
	within "$(predicted "$s" "$TMP"/fig1/causal.*)" -100 "$bound" "Figure 1: a() +$s% predicts at most what it could gain in this run, +$truth% (+5, at least 10)"
done

# A pipeline whose hot line is really made 20 % faster: on two free cores
# of equal speed the producer (2 ms an item) is the bottleneck and the
# program gains 20 %; with the consumer on a core a third slower, or
# sharing one with another program, it gains nothing; sharing one core the
# two threads gain 11 %. causal_real says
# what this very run could gain under each model (CAUSAL_REAL_TRUTH); the
# prediction must lie between them, give or take 8 points. A separate
# native run is printed for reference only: its cores need not be the
# profiled run's.
table causal_real
idr=$(line_id causal_real "real: hot line")
t0= t20=
for r in 1 2 3; do
	t0="$t0 $(wall "$PROGS/causal_real" 0 250)"
	t20="$t20 $(wall "$PROGS/causal_real" 20 250)"
done
true20=$(echo "100 * (1 - $(median3 $t20) / $(median3 $t0))" | bc -l | xargs printf '%.1f')
# 3000 items (6 s), some 60 experiments a speedup. With the other core busy
# the two stages share one core or two from one experiment to the next:
# with 1200 items (20 experiments each), 3 of 6 runs of this file under
# that load failed here; with 3000, none of the runs since.
causal "$TMP/real" causal_real CAUSAL_REAL_TRUTH="$TMP/real.truth" WITCH_CAUSAL_FIXED_LINE="$idr" WITCH_CAUSAL_SPEEDUPS=0,20 -- "$PROGS/causal_real" 0 3000 >/dev/null
p20=$(predicted 20 "$TMP"/real/causal.*)
# shellcheck disable=SC2046
set -- $(awk '$1 == 20 { print ($2 < $3 ? $2 : $3), ($2 < $3 ? $3 : $2), $4 }' "$TMP/real.truth")
diag "pipeline: hot line 20% faster: this run could gain $1..$2% (the hot line waited $3% for a core), a native run gains $true20% now, predicted $p20%"
# (give or take 8: with the other core busy neither model holds exactly,
# and +0.1 above the range +6 was seen)
within "$p20" "$(echo "$1 - 8" | bc)" "$(echo "$2 + 8" | bc)" "pipeline: hot line +20% predicts what this run could gain (give or take 8)"

# --- the delay budget --------------------------------------------------------
# Experiments back to back, Figure 1 (random speedups of a() or b()) pauses
# for 15-19 % of its run. An experiment starts only while the delay added
# so far is within the budget, so the run's delay is at most the budget's
# share of its time plus the last experiment's (~20 ms, 50 ms of a loaded
# machine's longer experiments: up to 2.5 % of this run of 2 s or more).
for budget in 1 default; do
	v=WITCH_CAUSAL_DELAY_BUDGET=$budget
	[ $budget = default ] && v=WITCH_CAUSAL_DELAY_BUDGET=
	causal "$TMP/budget-$budget" causal_fig1 "$v" -- "$PROGS/causal_fig1" 300 >/dev/null
	f=$(ls "$TMP"/budget-$budget/causal.* | head -n 1)
	# what the pauses cost: the global delay, or what the threads paused if less
	share=$(awk -F'\t' '$1 == "runtime" { split($3, w, "="); split($4, d, "="); split($6, p, "=")
		printf "%.2f", 100 * (p[2] < d[2] ? p[2] : d[2]) / w[2] }' "$f")
	sped=$(grep '^experiment' "$f" | grep -vc 'speedup=0.00')
	diag "delay budget $budget: delays took $share % of the run; $sped experiments with a speedup of $(grep -c '^experiment' "$f")"
	ok $([ "$sped" -ge 1 ]; echo $?) "delay budget $budget: experiments with a speedup still run"
	[ $budget = 1 ] && within "$share" 0 4 "delay budget 1 %: the delays' share of the run"
	[ $budget = default ] && within "$share" 0 8 "default delay budget (5 %): the delays' share of the run"
done
done_testing
