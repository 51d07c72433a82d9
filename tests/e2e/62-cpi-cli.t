#!/bin/sh
# witch cpi runs the command twice with the same arguments, environment
# and stdin (saved when it is not a terminal, a pipe streamed to the
# first run); the first run's output and exit status are the program's;
# threads, forks and execs are followed in both runs; runs that differ
# are reported, not hidden; bad input gets one line and a non-zero exit.
. "$(dirname "$0")/lib.sh"

p=$PROGS/cpi_runs
# Samples at 5 kHz: the program runs for a few milliseconds.
echo 2000000 | "$WITCH" cpi --rate=5000 -o "$TMP/a" -- "$p" >"$TMP/out" 2>"$TMP/err"
is "$?" 3 "the program's exit status passes through (3)"
is "$(cat "$TMP/out")" "$(echo 2000000 | "$p")" "its output passes through, once"
like "$(cat "$TMP/err")" "^witch cpi: sampled run .* counting run .*; see them with: witch report $TMP/a" \
	"one summary line"
is "$(wc -l <"$TMP/err" | tr -d ' ')" 1 "and nothing else on stderr"
"$WITCH" report --format=json "$TMP/a" >"$TMP/j" 2>/dev/null
is "$(jq -r '.loops[] | select(.function == "sum") | "\(.invocations) \(.iterations)"' "$TMP/j")" "1 2000000" \
	"the piped stdin reached the counting run too: 2000000 iterations"
is "$(jq -r '.totals | "\(.sampled_processes) \(.counted_processes)"' "$TMP/j")" "1 1" "one process in each run"
ls -a "$TMP/a" | grep -q stdin
ok $((! $?)) "the saved stdin is not left behind"

# A pipe that never ends is streamed to the first run, not saved first;
# the second run gets what the first could read.
yes | timeout 60 "$WITCH" cpi -q -o "$TMP/y" -- head -1 >"$TMP/out" 2>/dev/null
is "$?" 0 "an endless pipe on stdin: witch cpi ends (yes | witch cpi -- head -1)"
is "$(cat "$TMP/out")" y "and the first run read it"
"$WITCH" report --format=json "$TMP/y" >"$TMP/yj" 2>/dev/null
is "$(jq -r '.totals | "\(.sampled_processes) \(.counted_processes) \(.instructions > 0)"' "$TMP/yj")" "1 1 true" \
	"and the counting run ran head too"

# 10000000: the thread runs long enough for tens of samples at 5 kHz.
echo 10000000 | "$WITCH" cpi -q --rate=5000 -o "$TMP/f" -- "$p" family >/dev/null 2>"$TMP/err"
is "$?" 3 "with a thread and a child: exit status 3"
is "$(cat "$TMP/err")" "" "runs that agree: no warning"
"$WITCH" report --format=json "$TMP/f" >"$TMP/fj" 2>/dev/null
is "$(jq -r '.totals | "\(.sampled_processes) \(.counted_processes) \(.sampled_threads) \(.counted_threads)"' "$TMP/fj")" \
	"2 2 3 3" "both runs follow the child and the thread: 2 processes, 3 threads each"
is "$(jq -r '.loops[] | select(.function == "sum") | "\(.invocations) \(.iterations)"' "$TMP/fj")" "3 30000000" \
	"the loop ran in the process, its thread and its child: 3 invocations, 30000000 iterations"
# The thread's start: natively glibc's __clone3 calls start_thread, under
# Valgrind (no clone3) __clone does, so __clone3's call has no count below.
# A system call's time is the kernel's, so a function's time per
# instruction may be high, but not 10 us with most of it below its calls.
is "$(jq -r '[.functions[] | select(.inclusive_ns_per_instruction != null and
	.inclusive_ns_per_instruction > 10000 and .samples_share < 0.5 * .inclusive_share) | .function] |
	join(",")' "$TMP/fj")" "" \
	"no function's time per instruction with callees is absurd: time below uncounted calls is left out"
is "$(jq -r '[.functions[] | select(.uncounted_share >= 0.01 * .inclusive_share and .uncounted_share > 0) |
	.inclusive_ns_per_instruction] | unique | map(tostring) | join(",")' "$TMP/fj")" "null" \
	"a function with time below a call counted nothing below: no time per instruction with callees"
echo 10 | "$WITCH" cpi -q --no-follow -o "$TMP/n" -- "$p" family >/dev/null 2>&1
is "$(ls "$TMP/n" | grep -c '\.witch$')" 2 "--no-follow: one profile per run, the child's left out"

# A shell that runs two commands: dash starts each with vfork, which the
# sampled run sees only as the exec'd program and Valgrind runs as fork.
echo 2000000 >"$TMP/input"
"$WITCH" cpi -q --rate=5000 -o "$TMP/sh" -- sh -c "$p <'$TMP/input' >/dev/null; $p <'$TMP/input' >/dev/null" \
	2>"$TMP/err"
is "$(cat "$TMP/err")" "" "sh -c running two commands: the runs agree, no warning"
"$WITCH" report --format=json "$TMP/sh" >"$TMP/shj" 2>/dev/null
is "$(jq -r '.totals | "\(.sampled_processes) \(.counted_processes) \(.sampled_threads) \(.counted_threads)"' "$TMP/shj")" \
	"3 3 3 3" "the shell and its two children in each run: 3 processes, 3 threads"

echo 10 | "$WITCH" cpi -q -o "$TMP/d" -- "$p" differ >/dev/null 2>"$TMP/err"
is "$?" 4 "runs that differ: the first run's exit status (4)"
like "$(cat "$TMP/err")" "warning: the two runs ended differently \(sampled run: exit status 4, counting run: exit status 3\)" \
	"the different exit statuses are reported"
like "$(cat "$TMP/err")" "warning: the two runs differ: the sampled run had 1 process and 2 threads, the counting run 1 and 1" \
	"the different thread counts are reported"
like "$("$WITCH" report "$TMP/d" 2>/dev/null | sed -n 2p)" "runs: sampled 1 process, 2 threads; counted 1 process, 1 thread" \
	"and the report shows both runs"

echo 2000000 | "$WITCH" cpi -q --rate=5000 -o "$TMP/v" -- "$p" diverge >/dev/null 2>"$TMP/err"
is "$(cat "$TMP/err")" "" "runs that took different paths but agree otherwise: no warning from witch cpi"
"$WITCH" report "$TMP/v" >/dev/null 2>"$TMP/err"
like "$(cat "$TMP/err")" \
	"^witch report: warning: [0-9.]+% of the sampled time is on code the counting run never executed" \
	"witch report says how much of the time is on code the counting run never executed"
within "$("$WITCH" report --format=json "$TMP/v" 2>/dev/null | jq -r '.totals.diverged_share')" 0.5 1 \
	"most of it: the loop that the sampled run ran elsewhere"

cd "$TMP" && echo 1 | "$WITCH" cpi -q -- "$p" >/dev/null 2>&1
[ -n "$(ls "$TMP/witch-cpi_runs-cpi"/*.witch 2>/dev/null)" ]; ok $? "default directory witch-PROGRAM-cpi"
cd "$TOP" || exit 1

expect_error "no program" '^witch cpi: no program given' "$WITCH" cpi
expect_error "a bad --rate" '^witch cpi: --rate=0 is not a rate' "$WITCH" cpi --rate=0 -- "$p"
expect_error "an unknown option" "^witch cpi: unknown option '--bogus'" "$WITCH" cpi --bogus -- "$p"
for cmd in cpi record spy causal; do
	expect_error "$cmd -o without a directory" "^witch $cmd: -o needs an output directory" "$WITCH" $cmd -o
	expect_error "$cmd --output without a directory" "^witch $cmd: --output needs an output directory" \
		"$WITCH" $cmd --output
done
expect_error "a value to an option that takes none" '^witch cpi: --quiet takes no value' \
	"$WITCH" cpi --quiet=yes -- "$p"
expect_error "an unknown short option" "^witch cpi: unknown option '-x'" "$WITCH" cpi -x -- "$p"
expect_error "a bad --top on cpi profiles" \
	"^witch report: --top needs a whole number of rows of each table to show, not 'x' \(0 shows all\)" \
	"$WITCH" report --top=x "$TMP/a"
mkdir "$TMP/none"
expect_error "a bad --top on record profiles" "^witch report: --top needs a whole number of pairs to show" \
	"$WITCH" report --top=x "$TMP/none"
expect_error "a missing program" '^witch cpi: .*nonexistent: No such file' "$WITCH" cpi -- "$TMP/nonexistent"
touch "$TMP/file"
expect_error "an output directory under a file" '^witch cpi: cannot create output directory' \
	"$WITCH" cpi -o "$TMP/file/sub" -- "$p"
expect_error "an unknown function" '^witch report: no function nosuch ran' \
	"$WITCH" report --function=nosuch "$TMP/a"
expect_error "a bad --ghz" '^witch report: --ghz=fast is not a frequency' "$WITCH" report --ghz=fast "$TMP/a"
expect_error "--pid on cpi profiles" '^witch report: --pid does not apply to witch cpi profiles' \
	"$WITCH" report --pid=1 "$TMP/a"
mkdir "$TMP/empty"
expect_error "--function elsewhere" '^witch report: --function and --ghz apply to witch cpi profiles' \
	"$WITCH" report --function=main "$TMP/empty"
cp "$TMP/a"/*.witch "$TMP/empty/"
rm "$TMP/empty"/*.witch
for f in "$TMP/a"/*.witch; do grep -q '^tool time' "$f" && cp "$f" "$TMP/empty/"; done
expect_error "one run's profiles only" "^witch report: .* has no profile of witch cpi's counting run" \
	"$WITCH" report "$TMP/empty"

# --run: one run each (a parallel job's ranks make them as two jobs).
expect_error "a bad --run" '^witch cpi: --run=both is not a run; use --run=sampled' \
	"$WITCH" cpi --run=both -- "$p"
echo 2000000 | "$WITCH" cpi --run=sampled --rate=5000 -o "$TMP/r" -- "$p" >"$TMP/out" 2>"$TMP/err"
is "$?" 3 "--run=sampled: the program's exit status"
like "$(cat "$TMP/err")" '^witch cpi: sampled run .*; with a counting run \(--run=counting\) into' \
	"... and a summary line that asks for the other run"
echo 2000000 | "$WITCH" cpi --run=counting -o "$TMP/r" -- "$p" >"$TMP/out" 2>/dev/null
is "$?" 3 "--run=counting: the program's exit status"
is "$(cat "$TMP/out")" "$(echo 2000000 | "$p")" "... and output: alone, the counting run is the program's"
"$WITCH" report --format=json "$TMP/r" >"$TMP/rj" 2>/dev/null
is "$(jq -r '.totals | "\(.sampled_processes) \(.counted_processes)"' "$TMP/rj")" "1 1" \
	"the report joins the two runs"
before=$(grep -l '^tool count' "$TMP/r"/*.witch)
echo 2000000 | "$WITCH" cpi -q --run=sampled --rate=5000 -o "$TMP/r" -- "$p" >/dev/null 2>&1
is "$(ls "$TMP/r" | grep -c '\.witch$') $(grep -l '^tool count' "$TMP/r"/*.witch)" "2 $before" \
	"--run=sampled again replaces the sampled run's profile, keeps the counting run's"
done_testing
