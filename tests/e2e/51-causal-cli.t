#!/bin/sh
# witch causal's command line: one-line errors before anything runs (bad
# options, no debug information, lines without code, scopes matching
# nothing), then short runs of a DWARF 5 program: output and exit status
# pass through, the line table and a profile are written, the guidance
# when no progress point is reached, --progress, --end-to-end, --line.
. "$(dirname "$0")/lib.sh"

cd "$TMP" || exit 1
cat >prog.c <<'C'
#include <coz.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
volatile double x;
__attribute__((noinline)) static void step(int n)
{
	for (int i = 0; i < n; i++)
		x += i * 0.5;	/* HOT */
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 1000;

	for (int k = 0; k < iters; k++) {
		step(100000);	/* CALL */
		if (argc > 2 && argv[2][0] == 'p')
			COZ_PROGRESS;
	}
	printf("x=%.0f\n", x);
	if (argc > 2 && argv[2][0] == 'k')
		raise(SIGTERM);
	return 7;
}
C
cc -O1 -gdwarf-5 -o prog prog.c && cc -O1 -o prog-nodebug prog.c
ok $? "the test program builds with DWARF 5 and without debug information"
hot=$(line_of prog.c HOT)
call=$(line_of prog.c CALL)
printf '#!/bin/sh\nexec ./prog "$@"\n' >wrapper.sh
chmod +x wrapper.sh

expect_error "no program" 'no program given' "$WITCH" causal
expect_error "unknown option" "unknown option '--frobnicate'" "$WITCH" causal --frobnicate -- ./prog
expect_error "speedup above 100" '--speedup=120 is not a speedup; give a percentage from 0 to 100' \
	"$WITCH" causal --speedup=120 -- ./prog
expect_error "speedup not a number" '--speedup=fast is not a speedup' "$WITCH" causal --speedup=fast -- ./prog
expect_error "negative speedup" '--speedup=-5 is not a speedup' "$WITCH" causal --speedup=-5 -- ./prog
expect_error "speedups not numbers" '--speedups=0,x is not a list of speedups; give up to 21 percentages' \
	"$WITCH" causal --speedups=0,x -- ./prog
expect_error "speedups above 100" '--speedups=50,200 is not a list of speedups' "$WITCH" causal --speedups=50,200 -- ./prog
expect_error "empty speedups" '--speedups= is not a list of speedups' "$WITCH" causal --speedups= -- ./prog
expect_error "22 speedups" 'is not a list of speedups; give up to 21' "$WITCH" causal --speedups=$(seq -s, 0 5 105) -- ./prog
expect_error "--speedup with --speedups" '--speedup fixes one speedup and --speedups gives a list to draw from; give one of them' \
	"$WITCH" causal --speedup=5 --speedups=5,10 -- ./prog
expect_error "bad period" '--period=0 is not a period' "$WITCH" causal --period=0 -- ./prog
expect_error "bad delay budget" '--delay-budget=0 is not a budget; give the percentage of the run the pauses may take, 1 to 100' "$WITCH" causal --delay-budget=0 -- ./prog
expect_error "delay budget over 100" '--delay-budget=150% is not a budget' "$WITCH" causal --delay-budget=150% -- ./prog
expect_error "missing target" 'nothere: No such file or directory' "$WITCH" causal -- ./nothere
expect_error "perf refused" 'perf_event_open was refused' \
	"$PROGS/deny_perf" 13 "$WITCH" causal -o "$TMP/denied" -- ./prog
: >"$TMP/plainfile"
expect_error "unwritable output" 'cannot write to output directory .*plainfile' \
	"$WITCH" causal -o "$TMP/plainfile" -- ./prog
expect_error "no debug information" 'prog-nodebug has no debug information; rebuild it with -g' \
	"$WITCH" causal -- ./prog-nodebug
var=$(line_of prog.c '^volatile')
expect_error "progress on a line without code" "--progress=prog.c:$var: prog.c:$var has no code; the nearest line with code is" \
	"$WITCH" causal --progress=prog.c:$var -- ./prog
expect_error "progress in an unknown file" "no source file 'other.c' in the debug information of .*/prog; name a file of the program, such as .*prog.c" \
	"$WITCH" causal --progress=other.c:3 -- ./prog
expect_error "progress not FILE:LINE" "'prog.c' is not FILE:LINE" "$WITCH" causal --progress=prog.c -- ./prog
expect_error "--line without code" '--line=prog.c:1: prog.c:1 has no code' \
	"$WITCH" causal --line=prog.c:1 -- ./prog
expect_error "scope matching nothing" '--scope=other.c matches no source file' \
	"$WITCH" causal --scope=other.c -- ./prog
expect_error "missing binary scope" '--binary-scope=nolib.so: No such file or directory' \
	"$WITCH" causal --binary-scope=nolib.so -- ./prog
expect_error "a script" 'wrapper.sh is a #! script: name the program whose lines to profile with --binary-scope=PATH' \
	"$WITCH" causal -- ./wrapper.sh

if [ ! -r "$TOP/build/lib/witch/libwitchcausal.so" ]; then
	echo "ok - # SKIP libwitchcausal.so is not built"
	_n=$((_n + 1))
	done_testing
	exit
fi

./prog 5000 p >native.out
"$WITCH" causal -o run1 -- ./prog 5000 p >run1.out 2>run1.err
is $? 7 "the program's exit status passes through"
cmp -s native.out run1.out
ok $? "its output passes through unchanged"
like "$(tail -n 1 run1.err)" '^witch causal: [0-9]+ experiments? in this run; see them with: witch report run1$' \
	"a summary names the report command"
is "$(head -n 1 run1/.causal-lines)" "$(printf 'witch-causal-lines\t1')" "the line table is written"
like "$(grep '^line' run1/.causal-lines | cut -f3,4 | grep "prog.c:$hot	")" "/prog.c:$hot	step\$" \
	"it has the hot line, as the debug info names it, in step()"
is "$(ls run1 | grep -c '^causal\.[0-9]*$')" 1 "one causal profile"
"$WITCH" report --format=json run1 >run1.json 2>/dev/null
ok $? "witch report reads it"
is "$(json run1.json '.progress_points[0] | [.name, .kind] | join(" ")')" "prog.c:$((call + 2)) throughput" \
	"COZ_PROGRESS from coz.h counts"
like "$(json run1.json '.lines[].location' | sort -u | tr '\n' ' ')" "/prog.c:$hot " \
	"the hot line has a curve"

"$WITCH" causal -o run2 -- ./prog 300 >run2.out 2>run2.err
is $? 7 "without a progress point, the exit status still passes through"
like "$(cat run2.err)" 'witch causal: no progress point was reached.*COZ_PROGRESS \(#include <coz.h> or <witch.h>\).*--progress=FILE:LINE.*--end-to-end' \
	"the guidance says how to add one"
expect_error "witch report on that run" 'no progress point was reached' "$WITCH" report run2

# --progress counts with a hardware breakpoint where one fires, else with
# a uprobe (and says so); the counts are exact: against COZ_PROGRESS two
# lines further, at most one visit an experiment straddles its start or end.
if [ -n "$(progress_counters)" ]; then
	"$WITCH" causal -o run3 --progress="prog.c:$call" -- ./prog 1500 p >/dev/null 2>run3.err
	is $? 7 "a breakpoint progress point run"
	"$WITCH" report --format=json run3 >run3.json 2>/dev/null
	is "$(json run3.json '.progress_points[] | .name' | sed 's|.*/||' | sort | tr '\n' ' ')" \
		"prog.c:$call prog.c:$((call + 2)) " "it is named by its line"
	nb=$(json run3.json ".progress_points[] | select(.name | endswith(\"/prog.c:$call\")) | .visits")
	nc=$(json run3.json ".progress_points[] | select(.name == \"prog.c:$((call + 2))\") | .visits")
	ne=$(grep -c '^experiment' run3/causal.*)
	diag "--progress visits $nb, COZ_PROGRESS $nc, $ne experiments"
	within "$nc" 100 1500 "COZ_PROGRESS counts visits"
	within "$nb" "$((nc - ne))" "$((nc + ne))" "and --progress counts the same visits"
	if debug_registers_fire; then
		[ "$(grep -c uprobes run3.err)" = 0 ]; ok $? "hardware breakpoints count where they fire"
	else
		is "$(head -n 1 run3.err)" "witch causal: --progress counts visits with uprobes (hardware breakpoints do not work here; see witch doctor)" \
			"uprobes count where they do not, and witch says so"
	fi
else
	expect_error "--progress where neither breakpoints nor uprobes count" \
		'needs hardware breakpoints or uprobes: .*; and .*COZ_PROGRESS.*--end-to-end' \
		"$WITCH" causal -o run3 --progress=prog.c:$call -- ./prog 1500
	skip "counting visits: $("$PROGS/dr_probe"); $("$PROGS/uprobe_probe")"
fi
# Uprobes need CAP_PERFMON: without it, where breakpoints do not fire either,
# the one-line refusal gives both reasons.
if ! debug_registers_fire && [ "$(id -u)" = 0 ] && setpriv --bounding-set=-all --inh-caps=-all true 2>/dev/null; then
	expect_error "--progress with breakpoints that do not fire and no CAP_PERFMON" \
		'--progress needs hardware breakpoints or uprobes: hardware breakpoints open but never fire.*; and uprobe events were refused .*CAP_PERFMON.*COZ_PROGRESS.*--end-to-end' \
		setpriv --bounding-set=-all --inh-caps=-all "$WITCH" causal -o run3x --progress="prog.c:$call" -- ./prog 1500
	[ ! -e run3x ]; ok $? "and nothing ran"
fi

for i in 1 2; do
	"$WITCH" causal -q -o run4 --end-to-end -- ./prog 400 >/dev/null 2>>run4.err
done
"$WITCH" report --format=json run4 >run4.json 2>/dev/null
is "$(json run4.json '[.runs, .progress_points[0].name] | map(tostring) | join(" ")')" "2 end-to-end" \
	"end-to-end runs into one directory accumulate"
is "$(cat run4.err)" "" "-q: nothing on stderr"

"$WITCH" causal -q -o run5 --line=prog.c:$hot --speedup=0 -- ./prog 800 p >/dev/null 2>&1
is "$(awk -F'\t' '$1 == "experiment" { print $2, $3 }' run5/causal.* | sort -u | sed 's|selected=.*/|selected=|')" \
	"selected=prog.c:$hot speedup=0.00" "--line and --speedup fix every experiment"

# --speedups: drawn from the list, and 0 % baselines added to a list without 0.
# Short experiments (the runtime's knobs) for about a hundred of them: each
# speedup is missing from all with odds of (2/3)^100.
WITCH_CAUSAL_MIN_EXPERIMENT_NS=2000000 WITCH_CAUSAL_COOLOFF_NS=1000000 \
	"$WITCH" causal -q -o run6 --line=prog.c:$hot --speedups=40%,70 -- ./prog 2000 p >/dev/null 2>&1
awk -F'\t' '$1 == "experiment" { print $3 }' run6/causal.* | sort | uniq -c >run6.speedups
diag "$(tr '\n' ' ' <run6.speedups)"
is "$(awk '{ print $2 }' run6.speedups | tr '\n' ' ')" "speedup=0.00 speedup=0.40 speedup=0.70 " \
	"--speedups=40%,70: experiments at those speedups and 0 % baselines, no others"

cat >lib.c <<'C'
volatile double y;
void libwork(int n)
{
	for (int i = 0; i < n; i++)
		y += i * 0.5;	/* LIBHOT */
}
C
printf '#include <coz.h>\nvoid libwork(int n);\nint main(void) { for (int k = 0; k < 1200; k++) { libwork(100000); COZ_PROGRESS; } return 0; }\n' >uselib.c
cc -O1 -g -shared -fPIC -o libcz.so lib.c && cc -O1 -g -o uselib uselib.c -L. -lcz -Wl,-rpath,"$TMP"
# Short experiments, as for --speedups above: with the default length a
# run held 13-15 experiments, and once too few for the library's line.
WITCH_CAUSAL_MIN_EXPERIMENT_NS=2000000 WITCH_CAUSAL_COOLOFF_NS=1000000 \
	"$WITCH" causal -q -o run7 --binary-scope=libcz.so -- ./uselib >/dev/null 2>&1
is "$(grep '^module' run7/.causal-lines | cut -f2,3 | sed 's|/.*/||' | tr '\t\n' ': ')" "0:uselib 1:libcz.so " \
	"--binary-scope adds the library to the line table"
"$WITCH" report --format=json run7 >run7.json 2>/dev/null
like "$(json run7.json '.lines[].location' | tr '\n' ' ')" "/lib.c:$(line_of lib.c LIBHOT) " \
	"the library's hot line is sped up"
# A program without debug information (as distributions ship them) whose
# library has it: with --binary-scope, the library's lines, and a warning.
cc -O1 -o uselib-nodebug uselib.c -L. -lcz -Wl,-rpath,"$TMP"
WITCH_CAUSAL_MIN_EXPERIMENT_NS=2000000 WITCH_CAUSAL_COOLOFF_NS=1000000 \
	"$WITCH" causal -q -o run8 --binary-scope=libcz.so -- ./uselib-nodebug >/dev/null 2>run8.err
ok $? "--binary-scope: a program without debug information runs"
is "$(cat run8.err)" "witch causal: warning: ./uselib-nodebug has no debug information; only the lines of the --binary-scope libraries are sped up" \
	"and a one-line warning says whose lines are sped up"
is "$(grep '^module' run8/.causal-lines | cut -f2,3 | sed 's|/.*/||' | tr '\t\n' ': ')" "0:libcz.so " \
	"the line table has the library alone"
expect_error "--binary-scope without debug information either" 'prog-nodebug has no debug information; rebuild it with -g' \
	"$WITCH" causal -o run9 --binary-scope=prog-nodebug -- ./prog-nodebug
"$WITCH" report --format=json run8 >run8.json 2>/dev/null
like "$(json run8.json '.lines[].location' | tr '\n' ' ')" "/lib.c:$(line_of lib.c LIBHOT) " \
	"its hot line is sped up"

"$WITCH" causal -q -o run6 -- ./prog 200 k >/dev/null 2>&1
is $? 143 "a program killed by SIGTERM: witch ends the same way"
done_testing
