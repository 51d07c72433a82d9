#!/bin/sh
# Parallel jobs (docs/mpi.md). The report on the profiles of 2,000 ranks,
# generated (bench/gen-ranks): merged within seconds and bounded memory,
# one rank selected, each pair's spread over the ranks. Then Open MPI's
# mpirun on this machine, 4 ranks, rank 2 wasting 8 times what the others
# do: witch spy and witch record under mpirun, the ranks of a second host
# (in a UTS namespace of their own: the host name is uname's, as on a
# real second machine) writing into the same directory, witch causal,
# witch cpi's two runs as two jobs, and MPI's singleton start (its orted)
# not profiled.
. "$(dirname "$0")/lib.sh"

G=$TMP/gen
"$TOP/bench/gen-ranks" "$G" 2000 125 1234
is "$(ls "$G" | wc -l)" 2000 "2,000 generated profiles"

# --- the report on many ranks ---------------------------------------------

M=$TOP/build/bench/measure
if [ -x "$M" ]; then
	"$M" "$WITCH" report --by-rank --format=json "$G" 3>"$TMP/m" >"$TMP/g.json" 2>"$TMP/g.err"
	is "$(cut -d' ' -f3 "$TMP/m")" 0 "2,000 ranks: the report succeeds"
	# bench/many-ranks measures it (docs/results.md): well under these.
	within "$(cut -d' ' -f1 "$TMP/m")" 0 60 "... within seconds (wall s)"
	within "$(cut -d' ' -f2 "$TMP/m")" 0 200000 "... in bounded memory (peak RSS KiB)"
else
	"$WITCH" report --by-rank --format=json "$G" >"$TMP/g.json" 2>"$TMP/g.err"
	is $? 0 "2,000 ranks: the report succeeds"
	skip "time and memory bounds (build/bench/measure is not built: make build/bench/measure)"
	skip "time and memory bounds"
fi
is "$(json "$TMP/g.json" '.ranks | length')" 2000 "JSON lists the 2,000 ranks"
is "$(json "$TMP/g.json" '.hosts | length')" 125 "... and the 125 hosts"
is "$(json "$TMP/g.json" '.process_details[0] | "\(.rank) \(.world_size) \(.host)"')" "0 2000 node000" \
	"... and each process's rank, world size and host"
# Pair 1 wastes 50 * (1 + rank % 5) bytes in each rank, 20 times that in
# rank 1234 (1234 % 5 = 4): 400 ranks each at 50, 100, 150, 200, 399 at
# 250, one at 5000.
is "$(json "$TMP/g.json" '.pairs[0].waste_bytes')" 304750 "the top pair merged over all ranks"
is "$(json "$TMP/g.json" '.by_rank[0] | "\(.max) \(.max_rank) \(.ranks_at_max)"')" "5000 1234 1" \
	"--by-rank: its max is the wasteful rank's"
is "$(json "$TMP/g.json" '.by_rank[0] | "\(.min) \(.min_rank) \(.ranks_at_min) \(.median)"')" "50 0 400 150" \
	"... its min, the lowest rank at it and how many are, and its median"
is "$(json "$TMP/g.json" '.by_rank[0].per_rank | "\(length) \(.[1234]) \(.[7])"')" "2000 5000 150" \
	"... and its waste in each rank, in the order of the ranks"
is "$(json "$TMP/g.json" '.by_rank | length')" 10 "... for each pair shown (--top)"

"$WITCH" report --by-rank "$G" >"$TMP/g.txt" 2>&1
like "$(grep '^ranks:' "$TMP/g.txt")" '^ranks: 2000 \(0 to 1999\) of a job of 2000, on 125 hosts \(node000, node001, node002, node003 and 121 more\)$' \
	"text: the ranks and hosts"
like "$(grep -m1 'by rank' "$TMP/g.txt")" \
	'by rank \(2000 ranks\): min 50\.0 \(rank 0 and 399 more\), median 150\.0, max 5000\.0 \(rank 1234\): 33\.3x the median' \
	"text: the top pair's spread, the wasteful rank at its max"

"$WITCH" report --rank=1234 --format=json "$G" >"$TMP/r.json"
is "$(json "$TMP/r.json" '"\(.processes | length) \(.process_details[0].rank) \(.totals.waste_bytes)"')" \
	"1 1234 11125" "--rank=1234: that rank alone (its 6375 bytes and pair 1's 4750 more)"
"$WITCH" report --rank=1234 "$G" >"$TMP/r.txt"
ok "$(grep -c 'left no profile' "$TMP/r.txt")" "... without a note on the ranks it left out"

rm "$G"/app-hnode007-r7-100007.witch
"$WITCH" report "$G" >"$TMP/g.txt"
like "$(grep '^note:' "$TMP/g.txt")" "^note: 1 of the job's 2000 ranks left no profile here \(the first: rank 7\)$" \
	"a rank of the job without a profile is noted"

# A profile from before ranks: no host, rank or world_size lines, and
# the old name. It merges with the others, but has no rank to compare.
awk '/^(host|rank|world_size) / { next } /^end / { print "end " n; next } { print; n++ }' \
	"$G/app-hnode000-r0-100000.witch" >"$TMP/app-99.witch"
"$WITCH" report --format=json "$TMP/app-99.witch" >"$TMP/o.json"
is "$(json "$TMP/o.json" '"\(.process_details[0].rank) \(.process_details[0].host) \(.ranks | length)"')" \
	"null null 0" "an old profile reads: no rank, no host"
"$WITCH" report "$TMP/app-99.witch" >"$TMP/o.txt"
ok "$(grep -c '^ranks:' "$TMP/o.txt")" "... and its text report has no ranks line"
"$WITCH" report "$G" "$TMP/app-99.witch" >/dev/null
is $? 0 "it merges with the ranks' profiles"
expect_error "--by-rank with a process of no rank" '--by-rank compares the ranks.*1 of the 2000 processes have no rank' \
	"$WITCH" report --by-rank "$G" "$TMP/app-99.witch"
expect_error "--rank of no profile" 'no profile of rank 5000 in the given paths' \
	"$WITCH" report --rank=5000 "$G"
expect_error "--rank not a number" "--rank needs a rank, a whole number from 0, not '-1'" \
	"$WITCH" report --rank=-1 "$G"
expect_error "--rank and --by-rank" '--by-rank compares all the ranks; drop --rank=3' \
	"$WITCH" report --rank=3 --by-rank "$G"
expect_error "--by-rank as folded stacks" '--by-rank applies to --format=text and --format=json' \
	"$WITCH" report --by-rank --format=folded "$G"
mkdir "$TMP/causal"
printf 'witch-causal\tversion=1\tpid=1\tcommand=x\n' >"$TMP/causal/causal.1"
expect_error "--by-rank on causal profiles" '--pid and --by-rank apply to witch record and spy profiles' \
	"$WITCH" report --by-rank "$TMP/causal"
expect_error "--rank on causal profiles without ranks" 'has no causal profile of rank 0' \
	"$WITCH" report --rank=0 "$TMP/causal"

# --- under mpirun -----------------------------------------------------------

P=$PROGS/mpi_waste
if ! command -v mpirun >/dev/null 2>&1 || [ ! -x "$P" ]; then
	skip "runs under mpirun (Open MPI is not installed: scripts/install-deps installs it)"
	done_testing
	exit
fi
# As root (CI), Open MPI asks for these; 4 ranks on fewer cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN="mpirun --oversubscribe"
HOST=$(uname -n)

# The second host: a UTS namespace (root's, or a user namespace's).
if unshare -u true 2>/dev/null; then
	UNSHARE="unshare -u"
elif unshare -r -u true 2>/dev/null; then
	UNSHARE="unshare -r -u"
else
	UNSHARE=
fi
# on_host NAME CMD...: CMD where the host is called NAME.
on_host() {
	_h=$1
	shift
	$UNSHARE sh -c 'hostname "$0" && exec "$@"' "$_h" "$@"
}

expect_error "a launcher as the program" 'mpirun starts the ranks of a parallel job.*run witch record under it' \
	"$WITCH" record -o "$TMP/no" -- mpirun -np 2 "$P" 10 2 8

$MPIRUN -np 4 "$P" 10 2 8 >"$TMP/native.out" 2>/dev/null
is "$(cat "$TMP/native.out")" "4 ranks, sum 6590" "the program runs under mpirun"

# witch spy: ranks 0 and 1 here, 2 and 3 on the second host, in one job.
S=$TMP/spy
if [ -n "$UNSHARE" ]; then
	$MPIRUN -np 2 "$WITCH" spy -o "$S" -- "$P" 10 2 8 : \
		-np 2 $UNSHARE sh -c 'hostname witch-second-host && exec "$@"' sh \
		"$WITCH" spy -o "$S" -- "$P" 10 2 8 >"$TMP/spy.out" 2>"$TMP/spy.err"
	st=$? second=witch-second-host
else
	skip "a second host name (unshare -u needs root or user namespaces)"
	$MPIRUN -np 4 "$WITCH" spy -o "$S" -- "$P" 10 2 8 >"$TMP/spy.out" 2>"$TMP/spy.err"
	st=$? second=$HOST
fi
is "$st" 0 "witch spy under mpirun: the job's exit status"
cmp -s "$TMP/native.out" "$TMP/spy.out"
ok $? "... and its output, unchanged"
is "$(grep -c '^witch spy:' "$TMP/spy.err")" 1 "... one summary line, rank 0's"
like "$(grep '^witch spy:' "$TMP/spy.err")" "^witch spy: rank 0 wrote 1 profile in $S, each rank its own" \
	"... which says where all ranks' are"
is "$(ls "$S" | sed 's/-[0-9]*\.witch$//' | sort | tr '\n' ' ')" \
	"mpi_waste-h$HOST-r0 mpi_waste-h$HOST-r1 mpi_waste-h$second-r2 mpi_waste-h$second-r3 " \
	"a profile per rank, named by host and rank"
"$WITCH" report --by-rank --format=json "$S" >"$TMP/s.json"
is "$(json "$TMP/s.json" '.ranks | map(tostring) | join(" ")')" "0 1 2 3" "the report merges the 4 ranks"
is "$(json "$TMP/s.json" '[.process_details[] | "\(.rank):\(.host):\(.world_size)"] | sort | join(" ")')" \
	"0:$HOST:4 1:$HOST:4 2:$second:4 3:$second:4" "... each with its host and world size"
# clear's stores, all dead: 10 rounds of 16384 doubles, rank 2 80 rounds.
clear=$(jq '[.pairs[] | .watch[0].function == "clear" and .trap[0].function == "fill"] | index(true)' "$TMP/s.json")
is "$(json "$TMP/s.json" ".by_rank[$clear] | \"\(.min) \(.ranks_at_min) \(.median) \(.max) \(.max_rank)\"")" \
	"1310720 3 1310720 10485760 2" "--by-rank: rank 2 wastes 8 times the others' in clear -> fill"

# witch spy --tool=loop under the launcher, unchanged: each rank runs once,
# finding the loops of the code it meets as it goes.
L=$TMP/loops
$MPIRUN -np 2 "$WITCH" spy --tool=loop -o "$L" -- "$P" 10 1 2 >"$TMP/l1.out" 2>/dev/null
is $? 0 "witch spy --tool=loop under mpirun"
$MPIRUN -np 2 "$P" 10 1 2 >"$TMP/l0.out" 2>/dev/null
cmp -s "$TMP/l0.out" "$TMP/l1.out"
ok $? "... the job's output the program's"
is "$(ls "$L" | grep -c '\.witch$')" 2 "... a loop profile per rank"
is "$(grep -lx "module $P" "$L/cfg"/*.map | wc -l)" 1 "... the ranks share the program's loop map"
"$WITCH" report --rank=1 --format=json "$L" >"$TMP/l.json"
is "$(json "$TMP/l.json" '"\(.tool) \(.process_details[0].rank)"')" "loop 1" "the report of rank 1's loops"
# own_loops JSON: the program's loops (MPI's start-up varies from run to run)
own_loops() {
	jq -c '[.loops[] | select(.file // "" | test("mpi_waste|waste_rounds")) |
		[.function, .first_line, .iterations, .redundant_reads]] | sort' "$1"
}
within "$(own_loops "$TMP/l.json" | jq length)" 2 1000 "... the program's loops among them"

if debug_registers_fire; then
	R=$TMP/rec
	$MPIRUN -np 4 "$P" 2500 2 8 >"$TMP/native2.out" 2>/dev/null
	$MPIRUN -np 4 "$WITCH" record -o "$R" -- "$P" 2500 2 8 >"$TMP/rec.out" 2>"$TMP/rec.err"
	is $? 0 "witch record under mpirun: the job's exit status"
	cmp -s "$TMP/native2.out" "$TMP/rec.out"
	ok $? "... and its output, unchanged"
	is "$(ls "$R" | grep -c "^mpi_waste-h$HOST-r[0-3]-[0-9]*\.witch$")" 4 "a profile per rank"
	"$WITCH" report --by-rank --format=json "$R" >"$TMP/r.json"
	clear=$(jq '[.pairs[] | .watch[0].function == "clear" and .trap[0].function == "fill"] | index(true)' "$TMP/r.json")
	is "$(json "$TMP/r.json" ".by_rank[$clear].max_rank")" 2 "--by-rank: sampled, rank 2 stands out too"
	first=$(ls "$R" | sort | tr '\n' ' ')
	if [ -n "$UNSHARE" ]; then
		# The same job on another host, into the same directory.
		on_host witch-other-host $MPIRUN -np 4 "$WITCH" record -o "$R" -- "$P" 250 2 8 \
			>/dev/null 2>&1
		is "$(ls "$R" | grep -c '^mpi_waste-hwitch-other-host-r[0-3]-[0-9]*\.witch$')" 4 \
			"a second host's job writes its ranks' profiles beside the first's"
		is "$(ls "$R" | grep -c "^mpi_waste-h$HOST-")" 4 "... and leaves the first host's"
		$MPIRUN -np 4 "$WITCH" record -o "$R" -- "$P" 250 2 8 >/dev/null 2>&1
		is "$(ls "$R" | wc -l)" 8 "the first host's job again replaces its own profiles"
		left=0
		for f in $first; do
			[ -e "$R/$f" ] && left=$((left + 1))
		done
		is "$left" 0 "... (not one of its earlier ones is left)"
		"$WITCH" report --format=json "$R" >"$TMP/r2.json"
		is "$(json "$TMP/r2.json" '.hosts | length')" 2 "the report lists both hosts"
	else
		skip "a second host's job (unshare -u needs root or user namespaces)"
	fi

	# MPI's singleton start runs orted: not the application.
	"$WITCH" record -o "$TMP/one" -- "$P" 100 0 1 >/dev/null 2>&1
	is "$(ls "$TMP/one" | sed 's/[0-9]*\.witch$//' | tr '\n' ' ')" "mpi_waste- " \
		"without mpirun: one profile, named as ever (orted and its fork child left out)"
else
	skip "witch record under mpirun ($("$PROGS/dr_probe")): MPI programs have threads, which --watch=pages does not watch"
fi

rm -rf "$TMP/one"
"$WITCH" spy -q -o "$TMP/one" -- "$P" 1 0 1 >/dev/null 2>&1
is "$(ls "$TMP/one" | sed 's/[0-9]*\.witch$//' | tr '\n' ' ')" "mpi_waste- " \
	"witch spy without mpirun: one profile too"

# witch causal: a profile per rank, named by host and rank; no launcher,
# one profile (orted's fork child leaves none).
$MPIRUN -np 2 "$WITCH" causal --end-to-end -o "$TMP/cz" -- "$P" 200 1 2 >/dev/null 2>&1
is "$?" 0 "witch causal under mpirun"
is "$(ls "$TMP/cz" | sed 's/[0-9]*$//' | sort | tr '\n' ' ')" "causal.h$HOST.r0. causal.h$HOST.r1. " \
	"a causal profile per rank, named by host and rank"
like "$(head -n 1 "$TMP"/cz/causal.h*.r1.* | tr '\t' ' ')" "^witch-causal version=1 pid=[0-9]+ host=$HOST rank=1 world-size=2 " \
	"... its header says so"
is "$("$WITCH" report --format=json "$TMP/cz" 2>/dev/null | jq .runs) $("$WITCH" report --rank=1 --format=json "$TMP/cz" 2>/dev/null | jq .runs)" \
	"2 1" "the causal report merges both ranks' runs, --rank=1 takes rank 1's"
expect_error "--rank=5 of 2 ranks" "has no causal profile of rank 5" "$WITCH" report --rank=5 "$TMP/cz"
"$WITCH" causal --end-to-end -o "$TMP/cz1" -- "$P" 200 0 1 >/dev/null 2>&1
is "$(ls "$TMP/cz1" | sed 's/[0-9]*$//' | tr '\n' ' ')" "causal. " "witch causal without mpirun: one profile"

# witch cpi: a rank can start once per job, so the same job, run twice,
# makes the two runs: the sampled run, then the counting run.
C=$TMP/cpi
kinds() { for f in "$1"/*.witch; do sed -n 's/^tool //p' "$f"; done | sort | tr '\n' ' '; }
$MPIRUN -np 2 "$WITCH" cpi -o "$C" -- "$P" 10 1 2 >"$TMP/cs.out" 2>"$TMP/cs.err"
is $? 0 "witch cpi under mpirun"
is "$(kinds "$C")" "time time " "... the first job makes each rank's sampled run"
like "$(grep 'witch cpi:' "$TMP/cs.err")" '^witch cpi: rank 0: sampled run .*; run the same job again for the counting run$' \
	"... and says what comes next"
$MPIRUN -np 2 "$WITCH" cpi -o "$C" -- "$P" 10 1 2 >"$TMP/cc.out" 2>"$TMP/cc.err"
is $? 0 "the same job again"
is "$(kinds "$C")" "count count time time " "... makes each rank's counting run, beside its sampled run"
like "$(grep 'witch cpi:' "$TMP/cc.err")" "^witch cpi: rank 0: counting run .*see them with: witch report $C\$" \
	"... and says where both are"
$MPIRUN -np 2 "$P" 10 1 2 >"$TMP/cn.out" 2>/dev/null
cmp -s "$TMP/cn.out" "$TMP/cc.out" && cmp -s "$TMP/cn.out" "$TMP/cs.out"
ok $? "... each job's output the program's"
"$WITCH" report --rank=1 "$C" >"$TMP/c.txt" 2>&1
like "$(grep '^runs:' "$TMP/c.txt")" '^runs: sampled 1 process, [0-9]+ threads; counted 1 process' \
	"the report joins the runs of rank 1"
$MPIRUN -np 1 "$WITCH" cpi -o "$C" -- "$P" 10 1 2 >/dev/null 2>&1
is "$(kinds "$C")" "count time time " "a third job starts anew: rank 0's sampled run, its counting run gone"
# ... or in one command, --launch: witch starts the two jobs itself.
CL=$TMP/cpi-launch
"$WITCH" cpi --launch="$MPIRUN -np 2" -o "$CL" -- "$P" 10 1 2 >"$TMP/cl.out" 2>"$TMP/cl.err"
is $? 0 "witch cpi --launch=mpirun: the job's exit status"
cmp -s "$TMP/cn.out" "$TMP/cl.out"
ok $? "... the program's output, once"
is "$(ls "$CL" | grep -c -- '-r[01]-[0-9]*\.witch$')" 4 "... a sampled and a counting profile per rank"
like "$(tail -n 1 "$TMP/cl.err")" '^witch cpi: both jobs ran \(sampled, then counting\); see them with: witch report ' \
	"... and it says so"
"$WITCH" report --rank=1 "$CL" >"$TMP/cl.txt" 2>&1
like "$(grep '^runs:' "$TMP/cl.txt")" '^runs: sampled 1 process, [0-9]+ threads; counted 1 process' \
	"... the report joins the runs of rank 1"
# A failing program: the first job's status is witch's, and the profiles stay.
"$WITCH" cpi --launch="$MPIRUN -np 2" -o "$CL" -- sh -c 'exit 3' >/dev/null 2>&1
is $? 3 "witch cpi --launch: a program's failure is witch's exit status"
expect_error "--launch with --run" '^witch cpi: --launch makes both runs.*leave --run out' \
	"$WITCH" cpi --launch="$MPIRUN -np 2" --run=sampled -o "$TMP/no" -- "$P" 10 1 2
expect_error "--launch naming nothing" "^witch cpi: --launch=' ' names no launcher" \
	"$WITCH" cpi --launch=' ' -o "$TMP/no" -- "$P" 10 1 2
expect_error "--launch of a missing launcher" "^witch cpi: --launch: .*no-such-mpirun" \
	"$WITCH" cpi --launch='no-such-mpirun -np 2' -o "$TMP/no" -- "$P" 10 1 2
$MPIRUN -np 1 "$WITCH" cpi --launch="$MPIRUN -np 2" -o "$TMP/no" -- "$P" 10 1 2 >/dev/null 2>"$TMP/in.err"
ok $((! $?)) "--launch under a launcher: refused"
like "$(grep -m1 'witch cpi:' "$TMP/in.err")" '--launch starts the launcher itself \(this is rank 0 of a job\)' \
	"... saying to run it outside"

done_testing
