#!/bin/sh
# witch report --fail-above (the CI gate) and --format=folded, on profiles
# written by hand with known numbers: the gate's verdicts and exit statuses
# (3 above, 0 otherwise, 2 when misused), and folded stacks that are
# well-formed, root first, merged and weigh what the report does.
. "$(dirname "$0")/lib.sh"

# Contexts are code of witch itself, which has debug information: main
# calling wr_ratio (A, and A1 one byte further: another context in the
# same function), wr_stat (B) and wr_redundancy (C). A leaf is the
# instruction's own address, main's node a return address inside it.
MAIN=$(printf '%x' $((0x$(sym main) + 1)))
A=$(sym wr_ratio)
A1=$(printf '%x' $((0x$A + 1)))
B=$(sym wr_stat)
C=$(sym wr_redundancy)

[ -n "$A" ] && [ -n "$B" ] && [ -n "$C" ] && [ -n "$(sym main)" ]
ok $? "witch's own functions to make contexts of"

# head TOOL SOURCE PID: a profile's lines up to its threads.
head_lines() {
	printf 'WITCH-PROFILE 1\ntool %s\n' "$1"
	[ "$1" = rvn ] && printf 'by symbol\n'
	printf 'source %s\nrate_hz %s\nperiod 0\nregisters 0\npid %s\n' "$2" \
		"$([ "$2" = timer ] && echo 250 || echo 0)" "$3"
	printf 'start_ns 1\nend_ns 2\nstatus complete\narg 0 ./app\nmodule 0 - 0 %s\n' "$MODULE"
}
# Nodes 1 (main), then 2 A, 3 B, 4 A1, 5 C under it.
nodes() {
	printf 'n 0 -1 -1 0 0\nn 1 0 0 %s 0\nn 2 1 0 %s %s\nn 3 1 0 %s %s\nn 4 1 0 %s %s\nn 5 1 0 %s 0\n' \
		"$MAIN" "$A" "$1" "$B" "$2" "$A1" "$3" "$C"
}
ended() { awk '{ print } END { print "end", NR }'; }

# dead PID P-LINES...: a dead profile of one thread.
dead() {
	_pid=$1
	shift
	{
		head_lines dead timer "$_pid"
		printf 'stat samples 10\nstat watchpoints_armed 10\nstat traps 7\n'
		printf 'thread %s 6 %s\n' "$_pid" $#
		nodes 0 0 0
		for _p in "$@"; do echo "p $_p"; done
	} | ended
}

# Waste 150 + 50 + 50 = 250, use 50 + 300 + 400 = 750: dead fraction 0.25
# exactly. By the first (watch) context: main;wr_ratio 150 + 50 (A and A1
# fold into one stack), main;wr_stat 50; by the second (trap): wr_stat
# 150, wr_redundancy 50, wr_ratio 50. The use-only pair weighs nothing.
mkdir "$TMP/dead"
dead 101 "2 3 150.000 50.000 3" "4 5 50.000 0.000 1" "3 2 50.000 300.000 2" \
	"5 5 0.000 400.000 1" >"$TMP/dead/app-101.witch"

"$WITCH" report "$TMP/dead" >"$TMP/text" 2>"$TMP/err"
ok $? "(the profile reads)"
like "$(cat "$TMP/text")" '^dead fraction: 25\.0% ' "(its dead fraction is 25%)"

# gate EXPECTED-STATUS DESCRIPTION ARGS...: witch report's exit status.
gate() {
	_want=$1 _desc=$2
	shift 2
	"$WITCH" report "$@" >"$TMP/out" 2>"$TMP/err"
	is "$?" "$_want" "$_desc"
}

gate 0 "below the limit: exit 0" --fail-above=0.3 "$TMP/dead"
is "$(cat "$TMP/err")" "" "and nothing on stderr"
like "$(head -n 1 "$TMP/out")" '^witch report: dead stores \(DeadCraft\)' "the report is printed as usual"
gate 0 "equal to the limit passes: above is strict" --fail-above=0.25 "$TMP/dead"
gate 0 "equal as a percentage" --fail-above=25% "$TMP/dead"
gate 0 "1 never fails" --fail-above=1 "$TMP/dead"
gate 3 "above the limit: exit 3" --fail-above=0.2 "$TMP/dead"
is "$(cat "$TMP/err")" "witch report: dead fraction 25.0% is above --fail-above=0.2" \
	"one line on stderr says what was above what"
like "$(cat "$TMP/out")" 'dead fraction: 25\.0% .*' "the text report is printed before it"
gate 3 "above the limit, into a file: exit 3" --fail-above=0.2 -o "$TMP/gated.txt" "$TMP/dead"
like "$(cat "$TMP/gated.txt")" 'dead fraction: 25\.0% .*' "-o keeps the report that shows why"
gate 3 "above a percentage" "$TMP/dead" --fail-above=24.9%
is "$(cat "$TMP/err")" "witch report: dead fraction 25.0% is above --fail-above=24.9%" \
	"the limit as given"
gate 3 "0 fails on any waste" --fail-above 0 "$TMP/dead"

gate 3 "JSON above the limit: exit 3" --format=json --fail-above=10% "$TMP/dead"
is "$(json "$TMP/out" '.totals.redundancy')" 0.25 "the JSON is still printed, whole"
is "$(wc -l <"$TMP/err" | tr -d ' ')" 1 "and one line on stderr"

# A figure just above the limit is shown with the decimals that say so.
mkdir "$TMP/close"
dead 102 "2 3 100.004 899.996 1" >"$TMP/close/app-102.witch"
gate 3 "10.0004% is above 10%" --fail-above=10% "$TMP/close"
is "$(cat "$TMP/err")" "witch report: dead fraction 10.0004% is above --fail-above=10%" \
	"with enough decimals not to read as equal"

# Bad limits: one line, exit 2, before any profile is read.
for v in abc 1.5 150% -0.1 0x1 1e-1 nan . % 10%% 0.1.2 ' 0.1' ''; do
	gate 2 "--fail-above='$v': exit 2" --fail-above="$v" "$TMP/dead"
	is "$(wc -l <"$TMP/err" | tr -d ' ')" 1 "--fail-above='$v': one line on stderr"
done
like "$(cat "$TMP/err")" "^witch report: --fail-above= is not a fraction; give a decimal in \[0, 1\] or a percentage" \
	"it says what to give"
gate 2 "--fail-above without a value: exit 2" "$TMP/dead" --fail-above

# Profiles the gate does not apply to: exit 2, one line.
mkdir "$TMP/causal"
printf 'witch-causal\tversion=1\tpid=1\tcommand=./app\n' >"$TMP/causal/causal.1"
gate 2 "a causal profile is refused: exit 2" --fail-above=0.1 "$TMP/causal"
like "$(cat "$TMP/err")" '^witch report: --fail-above applies to record and spy profiles, .* causal profiles' \
	"one line says why"
is "$(wc -l <"$TMP/err" | tr -d ' ')" 1 "only one"
is "$(cat "$TMP/out")" "" "and no report"

# witch cpi's two runs: main -> wr_ratio (A and A1) 3 + 2 ms, wr_stat 1 ms.
mkdir "$TMP/cpi"
{
	head_lines time timer 7
	printf 'thread 7 6 0\n'
	nodes "3 3000000" "1 1000000" "2 2000000"
} | ended >"$TMP/cpi/app-7.witch"
{ head_lines count exhaustive 8; printf 'i 0 %s 3 1000\n' "$A"; } | ended >"$TMP/cpi/app-8.witch"
gate 2 "a witch cpi profile is refused: exit 2" --fail-above=0.1 "$TMP/cpi"
like "$(cat "$TMP/err")" "^witch report: --fail-above applies to record and spy profiles, .*witch cpi's" \
	"one line says why"

# rvn: the redundant share of computations, 400 of 4000.
mkdir "$TMP/rvn"
{
	head_lines rvn exhaustive 9
	printf 'stat computations 4000\nstat redundant_computations 400\nstat loads 100\nstat redundant_loads 90\nstat stores 10\nstat redundant_stores 0\nstat dropped 0\n'
	printf 'thread 9 6 3\n'
	nodes 0 0 0
	printf 'r 2 3 c 300\nr 4 3 c 100\nr 3 5 l 90\n'
} | ended >"$TMP/rvn/app-9.witch"
gate 0 "rvn: 10% of computations is not above 10%" --fail-above=0.1 "$TMP/rvn"
gate 3 "rvn above: exit 3" --fail-above=0.05 "$TMP/rvn"
is "$(cat "$TMP/err")" "witch report: redundant computations 10.0% is above --fail-above=0.05" \
	"rvn's line names its figure"

# Folded stacks.
folded_ok() {	# folded_ok FILE DESCRIPTION: every line "frame;...;frame N", N > 0
	! grep -Evq '^[^; ]([^;]*[^; ])?(;[^; ]([^;]*[^; ])?)* [1-9][0-9]*$' "$1" && [ -s "$1" ]
	ok $? "$2"
}
sum() { awk '{ s += $NF } END { print s + 0 }' "$1"; }

"$WITCH" report --format=folded "$TMP/dead" >"$TMP/folded" 2>"$TMP/err"
ok $? "--format=folded"
is "$(cat "$TMP/err")" "" "no warnings"
folded_ok "$TMP/folded" "every line is frames joined by ';', a space and a whole weight"
is "$(cat "$TMP/folded")" "main;wr_ratio 200
main;wr_stat 50" "one line per distinct stack, root first, two contexts of one function merged"
is "$(sum "$TMP/folded")" 250 "the weights sum to the total waste"

"$WITCH" report --format=folded --folded-by=second "$TMP/dead" >"$TMP/folded2"
is "$(cat "$TMP/folded2")" "main;wr_ratio 50
main;wr_redundancy 50
main;wr_stat 150" "--folded-by=second: the killing stores' stacks"
"$WITCH" report --format=folded --folded-by=first --top=1 "$TMP/dead" >"$TMP/folded3"
cmp -s "$TMP/folded" "$TMP/folded3"
ok $? "--folded-by=first is the default; --top does not cut stacks"

gate 3 "--format=folded with the gate" --format=folded --fail-above=0.1 "$TMP/dead"
is "$(sum "$TMP/out")" 250 "the stacks are printed before the verdict"

# Sample-weighted bytes round to whole ones; a line of 0 says nothing.
mkdir "$TMP/frac"
dead 103 "2 3 0.400 0.000 1" "3 2 1.600 0.000 1" >"$TMP/frac/app-103.witch"
"$WITCH" report --format=folded "$TMP/frac" >"$TMP/folded"
is "$(cat "$TMP/folded")" "main;wr_stat 2" "weights rounded, lines of 0 dropped"

"$WITCH" report --format=folded "$TMP/rvn" >"$TMP/folded"
is "$(cat "$TMP/folded")" "main;wr_ratio 400
main;wr_stat 90" "rvn: redundant executions by the first context"
"$WITCH" report --format=folded --folded-by=second "$TMP/rvn" >"$TMP/folded"
is "$(cat "$TMP/folded")" "main;wr_redundancy 90
main;wr_stat 400" "and by the second (again)"

"$WITCH" report --format=folded "$TMP/cpi" >"$TMP/folded" 2>"$TMP/err"
ok $? "witch cpi's profiles fold"
is "$(cat "$TMP/folded")" "main;wr_ratio 5000000
main;wr_stat 1000000" "by the sampled run's CPU time in ns"
is "$(cat "$TMP/err")" "" "no warnings"

# Unsymbolized code: a frame per module, or [unknown] out of any.
mkdir "$TMP/nosym"
{
	head_lines deadspy exhaustive 104
	printf 'module 1 - 0 /nonexistent/lib%%3Bx.so\nthread 104 4 2\n'
	printf 'n 0 -1 -1 0 0\nn 1 0 1 1001 0\nn 2 1 1 2000 0\nn 3 1 -1 7fff0000 0\n'
	printf 'p 2 2 8.000 0.000 1\np 3 3 4.000 0.000 1\n'
} | ended >"$TMP/nosym/app-104.witch"
"$WITCH" report --format=folded "$TMP/nosym" >"$TMP/folded" 2>/dev/null
ok $? "a profile of unreadable modules folds"
folded_ok "$TMP/folded" "its lines are well-formed"
is "$(cat "$TMP/folded")" "[lib?x.so];[lib?x.so] 8
[lib?x.so];[unknown] 4" "frames named by their module, ';' in a name made safe"

expect_error "causal profiles have no stacks" '^witch report: --format=folded needs calling contexts' \
	"$WITCH" report --format=folded "$TMP/causal"
expect_error "--folded-by=third" '^witch report: --folded-by=third is not a choice' \
	"$WITCH" report --format=folded --folded-by=third "$TMP/dead"
expect_error "--folded-by without --format=folded" '^witch report: --folded-by applies to --format=folded' \
	"$WITCH" report --folded-by=second "$TMP/dead"
expect_error "--folded-by=second on witch cpi's" '^witch report: --folded-by=second applies to the pairs' \
	"$WITCH" report --format=folded --folded-by=second "$TMP/cpi"

"$WITCH" report --help >"$TMP/help"
like "$(cat "$TMP/help")" '--fail-above=FRACTION' "--help lists --fail-above"
like "$(cat "$TMP/help")" '--format=folded' "and --format=folded"
done_testing
