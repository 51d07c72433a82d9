#!/bin/sh
# Tasks started by Slurm's srun, in a cluster of one node that the test
# starts and stops itself (slurm-lib.sh: munged, slurmctld, slurmd). Each
# task learns its place from Slurm's variables alone (SLURM_PROCID,
# SLURM_NTASKS), no MPI: tests/progs/task_waste.c, whose task 2 does 8
# times the others' work. witch spy and witch record under srun: the
# tasks' output and exit status theirs, a profile per task named and
# headed by its rank and the world size, rank 0's summary line alone, task
# 2 standing out in --by-rank; witch cpi's two runs as two jobs; srun and
# slurmstepd never profiled, also where a script run under witch starts
# the step.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm-lib.sh"

P=$PROGS/task_waste

expect_error "srun as the program" 'srun starts the ranks of a parallel job.*run witch spy under it' \
	"$WITCH" spy -o "$TMP/no" -- srun -n 2 "$P" 10 2 8

if ! slurm_start; then
	skip "runs under srun: $slurm_why"
	done_testing
	exit
fi
HOST=$(uname -n)
# A profile's name, as the test compares them: PID and suffix left out.
names() { ls "$1" | sed 's/-*[0-9]*\.witch$//' | sort | tr '\n' ' '; }

# Tasks' lines come in any order: the output compared is sorted.
slurm_srun -n 4 "$P" 10 2 8 2>/dev/null | sort >"$TMP/native.out"
is "$(cat "$TMP/native.out" | tr '\n' ' ')" \
	"task 0 of 4, sum 90 task 1 of 4, sum 90 task 2 of 4, sum 6320 task 3 of 4, sum 90 " \
	"the program runs as 4 tasks of srun, each told its place"

# --- witch spy ------------------------------------------------------------

S=$TMP/spy
slurm_srun -n 4 "$WITCH" spy -o "$S" -- "$P" 10 2 8 >"$TMP/spy.out" 2>"$TMP/spy.err"
is $? 0 "witch spy under srun: the step's exit status"
sort "$TMP/spy.out" | cmp -s "$TMP/native.out" -
ok $? "... and its output, unchanged"
is "$(grep -c '^witch spy:' "$TMP/spy.err")" 1 "... one summary line, rank 0's"
like "$(grep '^witch spy:' "$TMP/spy.err")" "^witch spy: rank 0 wrote 1 profile in $S, each rank its own" \
	"... which says where all ranks' are"
is "$(names "$S")" "task_waste-h$HOST-r0 task_waste-h$HOST-r1 task_waste-h$HOST-r2 task_waste-h$HOST-r3 " \
	"a profile per task, named by host and rank: none of srun's or slurmstepd's"
"$WITCH" report --by-rank --format=json "$S" >"$TMP/s.json"
is "$(json "$TMP/s.json" '[.process_details[] | "\(.rank):\(.host):\(.world_size)"] | sort | join(" ")')" \
	"0:$HOST:4 1:$HOST:4 2:$HOST:4 3:$HOST:4" "each profile carries its rank, host and the world size"
# clear's stores, all dead: 10 rounds of 16384 doubles, task 2 80 rounds.
clear=$(jq '[.pairs[] | .watch[0].function == "clear" and .trap[0].function == "fill"] | index(true)' "$TMP/s.json")
is "$(json "$TMP/s.json" ".by_rank[$clear] | \"\(.min) \(.ranks_at_min) \(.median) \(.max) \(.max_rank)\"")" \
	"1310720 3 1310720 10485760 2" "--by-rank: task 2 wastes 8 times the others' in clear -> fill"

# A task that fails: srun's status is the task's, and every task has its
# profile.
slurm_srun -n 4 "$WITCH" spy -o "$TMP/fail" -- "$P" 1 2 8 1 >/dev/null 2>"$TMP/fail.err"
is $? 3 "a task exits with 3 under witch spy: so does srun"
like "$(grep 'srun: error' "$TMP/fail.err")" 'task 1: Exited with exit code 3' "... which names task 1"
is "$(ls "$TMP/fail" | grep -c "^task_waste-h$HOST-r[0-3]-[0-9]*\.witch$")" 4 "... a profile per task still"

# --- witch record ---------------------------------------------------------

if debug_registers_fire; then
	R=$TMP/rec
	slurm_srun -n 2 "$P" 2500 1 8 2>/dev/null | sort >"$TMP/native2.out"
	slurm_srun -n 2 "$WITCH" record -o "$R" -- "$P" 2500 1 8 >"$TMP/rec.out" 2>"$TMP/rec.err"
	is $? 0 "witch record under srun: the step's exit status"
	sort "$TMP/rec.out" | cmp -s "$TMP/native2.out" -
	ok $? "... and its output, unchanged"
	is "$(grep -c '^witch record:' "$TMP/rec.err")" 1 "... one summary line, rank 0's"
	is "$(names "$R")" "task_waste-h$HOST-r0 task_waste-h$HOST-r1 " "a profile per task"
	"$WITCH" report --format=json "$R" >"$TMP/r.json"
	is "$(json "$TMP/r.json" '[.process_details[] | "\(.rank):\(.world_size)"] | sort | join(" ")')" \
		"0:2 1:2" "... each with its rank and the world size"

	# A script run under witch record starts the step: srun, a launcher,
	# is not measured; its tasks, which inherit srun's environment (and so
	# witch's runtime), are, each as its rank. The script does more after
	# srun, so that no shell execs srun in its place.
	cat >"$TMP/job.sh" <<-EOF
		$SL_SRUN -n 2 "$P" 250 1 2
		echo step done
	EOF
	SLURM_CONF=$SL_CONF "$WITCH" record -o "$TMP/script" -- sh "$TMP/job.sh" >"$TMP/script.out" 2>/dev/null
	is $? 0 "witch record of a script that runs srun"
	is "$(tail -n 1 "$TMP/script.out")" "step done" "... which runs to its end"
	is "$(names "$TMP/script")" "sh task_waste-h$HOST-r0 task_waste-h$HOST-r1 " \
		"the script's profile and a profile per task: none of srun's or slurmstepd's"
else
	skip "witch record under srun ($("$PROGS/dr_probe"))"
fi

# Valgrind follows the script's children, not the tasks that slurmd
# starts: under witch spy, the script alone is measured.
cat >"$TMP/job-spy.sh" <<EOF
$SL_SRUN -n 2 "$P" 10 1 2
echo step done
EOF
SLURM_CONF=$SL_CONF "$WITCH" spy -o "$TMP/script-spy" -- sh "$TMP/job-spy.sh" >"$TMP/script-spy.out" 2>/dev/null
is "$? $(tail -n 1 "$TMP/script-spy.out")" "0 step done" "witch spy of a script that runs srun"
is "$(names "$TMP/script-spy")" "sh " "... measures the script, not srun, nor the tasks"

# --- witch cpi: a task starts once per step, so the same step, run
# twice, makes the two runs.

C=$TMP/cpi
slurm_srun -n 2 "$WITCH" cpi -o "$C" -- "$P" 10 1 2 >"$TMP/cs.out" 2>/dev/null
is $? 0 "witch cpi under srun: the sampled run"
slurm_srun -n 2 "$WITCH" cpi -o "$C" -- "$P" 10 1 2 >"$TMP/cc.out" 2>/dev/null
is $? 0 "the same step again: the counting run, into the same directory"
slurm_srun -n 2 "$P" 10 1 2 2>/dev/null | sort >"$TMP/cn.out"
sort "$TMP/cs.out" | cmp -s "$TMP/cn.out" - && sort "$TMP/cc.out" | cmp -s "$TMP/cn.out" -
ok $? "... each run's output the program's"
is "$(names "$C")" "task_waste-h$HOST-r0 task_waste-h$HOST-r0 task_waste-h$HOST-r1 task_waste-h$HOST-r1 " \
	"... a profile per task and run"
"$WITCH" report --rank=1 "$C" >"$TMP/c.txt" 2>/dev/null
like "$(grep '^runs:' "$TMP/c.txt")" '^runs: sampled 1 process, 1 thread; counted 1 process, 1 thread$' \
	"the report joins the runs of rank 1"

slurm_stop
is "$(slurm_procs)" "" "the cluster stopped: none of its processes is left"

done_testing
