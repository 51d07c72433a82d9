#!/bin/sh
# Ranks started by MPICH's Hydra (mpiexec.mpich), which tells each rank
# its place with PMI's variables (PMI_RANK, PMI_SIZE) rather than Open
# MPI's (88-mpi.t): a profile per rank, named and headed by its rank and
# the world size; Hydra's own proxies (hydra_pmi_proxy) not profiled;
# the rank that wastes 8 times the others' stands out in --by-rank.
. "$(dirname "$0")/lib.sh"

P=$PROGS/mpi_waste-mpich
if ! command -v mpiexec.mpich >/dev/null 2>&1 || [ ! -x "$P" ]; then
	skip "runs under MPICH (not installed: scripts/install-deps installs it)"
	done_testing
	exit
fi
HOST=$(uname -n)

mpiexec.mpich -n 4 "$P" 10 2 8 >"$TMP/native.out" 2>/dev/null
is "$(cat "$TMP/native.out")" "4 ranks, sum 6590" "the program runs under mpiexec.mpich"

S=$TMP/spy
mpiexec.mpich -n 4 "$WITCH" spy -o "$S" -- "$P" 10 2 8 >"$TMP/spy.out" 2>"$TMP/spy.err"
is $? 0 "witch spy under mpiexec.mpich: the job's exit status"
cmp -s "$TMP/native.out" "$TMP/spy.out"
ok $? "... and its output, unchanged"
is "$(grep -c '^witch spy:' "$TMP/spy.err")" 1 "... one summary line, rank 0's"
is "$(ls "$S" | sed 's/-[0-9]*\.witch$//' | sort | tr '\n' ' ')" \
	"mpi_waste-mpich-h$HOST-r0 mpi_waste-mpich-h$HOST-r1 mpi_waste-mpich-h$HOST-r2 mpi_waste-mpich-h$HOST-r3 " \
	"a profile per rank, named by host and rank: none of Hydra's proxies"
"$WITCH" report --by-rank --format=json "$S" >"$TMP/s.json"
is "$(json "$TMP/s.json" '[.process_details[] | "\(.rank):\(.world_size)"] | sort | join(" ")')" \
	"0:4 1:4 2:4 3:4" "each profile carries its rank and the world size"
# clear's stores, all dead: 10 rounds of 16384 doubles, rank 2 80 rounds.
clear=$(jq '[.pairs[] | .watch[0].function == "clear" and .trap[0].function == "fill"] | index(true)' "$TMP/s.json")
is "$(json "$TMP/s.json" ".by_rank[$clear] | \"\(.min) \(.ranks_at_min) \(.max) \(.max_rank)\"")" \
	"1310720 3 10485760 2" "--by-rank: rank 2 wastes 8 times the others' in clear -> fill"

done_testing
