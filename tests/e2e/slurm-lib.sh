# slurm-lib.sh - a Slurm cluster of one node, the test's own (sourced after
# lib.sh).
#
# slurm_start starts a MUNGE daemon with a key of its own, slurmctld and
# slurmd, everything under $TMP/slurm (configuration, state, spool, logs,
# the MUNGE socket) and on TCP ports nothing listens on, and waits until
# the node is idle; slurm_srun runs srun in it. On exit (the test's end,
# or a signal) slurm_stop stops the cluster and every process of it that is
# left. Each process of the cluster has its slurm.conf in its environment:
# the daemons, the slurmstepd each step runs (which inherits slurmd's) and
# each task (which inherits srun's), and so only they do: the test's own
# shell does not export SLURM_CONF.

SL=$TMP/slurm
SL_CONF=$SL/slurm.conf
# The node: the machine's name, as witch names the ranks' host.
SL_HOST=$(uname -n)
slurm_why=
slurm_daemons=

# A job or step variable of a Slurm job this test may run in would be
# taken for this cluster's (srun joins the job of SLURM_JOB_ID), and an
# MPI launcher's rank for the task's (witch reads those first).
for _v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(OMPI_COMM_WORLD_[A-Z]*\)=.*/\1/p; s/^\(PMIX\{0,1\}_[A-Z]*\)=.*/\1/p'); do
	unset "$_v"
done

trap 'slurm_stop; rm -rf "$TMP"' EXIT
trap 'exit 143' HUP INT TERM

# slurm_procs: the process ids of the cluster, those still running.
slurm_procs() {
	grep -slzxF "SLURM_CONF=$SL_CONF" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
}

# slurm_stop: stop the daemons and whatever of the cluster is left (a step
# still running, its tasks), within 5 s (then killed), and reap the
# daemons.
slurm_stop() {
	_left=$(slurm_procs)
	[ -n "$_left" ] || return 0
	# shellcheck disable=SC2086
	kill $_left 2>/dev/null
	_i=0
	while [ -n "$(slurm_procs)" ] && [ "$_i" -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	_left=$(slurm_procs)
	# shellcheck disable=SC2086
	[ -z "$_left" ] || kill -9 $_left 2>/dev/null
	# shellcheck disable=SC2086
	wait $slurm_daemons 2>/dev/null
	slurm_daemons=
}

# free_port: a TCP port from 20000 to 59999 that nothing listens on.
free_port() {
	_busy=$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4 == "0A" { split($2, a, ":"); print a[2] }')
	while :; do
		_p=$(awk -v s="$$$(date +%N)" 'BEGIN { srand(s % 2147483647); print 20000 + int(rand() * 40000) }')
		printf '%s\n' "$_busy" | grep -qx "$(printf '%04X' "$_p")" || break
	done
	echo "$_p"
}

# slurm_conf CTLD-PORT SLURMD-PORT: the cluster's slurm.conf. Root runs
# every daemon and job; no cgroups, no accounting, no MPI plugin (each task
# learns its place from SLURM_PROCID and SLURM_NTASKS); a node that comes
# back is at once in service.
slurm_conf() {
	cat >"$SL_CONF" <<EOF
ClusterName=witchtest
SlurmctldHost=$SL_HOST(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SL/munge.socket
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool
SlurmctldPidFile=$SL/slurmctld.pid
SlurmdPidFile=$SL/slurmd.pid
SlurmctldLogFile=$SL/log/slurmctld.log
SlurmdLogFile=$SL/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
NodeName=witchnode NodeHostname=$SL_HOST NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=witch Nodes=witchnode Default=YES MaxTime=INFINITE State=UP
EOF
}

# slurm_daemon NAME ARGS...: start a daemon of the cluster in the
# background, its output in log/NAME.out (munged's log; slurmctld's and
# slurmd's until they open their log/NAME.log); its process id in
# slurm_pid.
slurm_daemon() {
	_name=$1
	shift
	SLURM_CONF=$SL_CONF "$@" >>"$SL/log/$_name.out" 2>&1 &
	slurm_pid=$!
	slurm_daemons="$slurm_daemons $slurm_pid"
}

# slurm_running PID...: each of these processes of the cluster runs (a
# zombie has no environment left: not running).
slurm_running() {
	_all=$(slurm_procs)
	for _p; do
		printf '%s\n' "$_all" | grep -qx "$_p" || return 1
	done
}

# slurm_idle PID...: within 20 s, slurmctld says the node is idle; false at
# once when one of these daemons stopped (on a port taken since free_port
# looked, say).
slurm_idle() {
	_i=0
	while [ "$_i" -lt 100 ]; do
		[ "$(SLURM_CONF=$SL_CONF timeout 5 sinfo -h -n witchnode -o %t 2>/dev/null)" = idle ] && return 0
		slurm_running "$@" || return 1
		sleep 0.2
		_i=$((_i + 1))
	done
	return 1
}

# slurm_start: the cluster, started; false with slurm_why set (and the
# daemons' last words as diagnostics) when it cannot start here.
slurm_start() {
	if [ "$(id -u)" -ne 0 ]; then
		slurm_why="the test's Slurm daemons run as root, and this is user $(id -un)"
		return 1
	fi
	for _c in munged slurmctld slurmd srun sinfo; do
		command -v "$_c" >/dev/null 2>&1 && continue
		slurm_why="$_c is not installed (scripts/install-deps installs Slurm and MUNGE)"
		return 1
	done
	mkdir -p "$SL/state" "$SL/spool" "$SL/log"
	# munged wants its socket's folders open to every user's clients.
	chmod 711 "$TMP" "$SL"
	dd if=/dev/urandom of="$SL/munge.key" bs=1024 count=1 2>/dev/null
	chmod 600 "$SL/munge.key"
	slurm_daemon munged munged -F --key-file="$SL/munge.key" --socket="$SL/munge.socket" \
		--pid-file="$SL/munged.pid" --seed-file="$SL/munged.seed"
	_i=0
	while [ ! -S "$SL/munge.socket" ] && [ "$_i" -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	if [ ! -S "$SL/munge.socket" ]; then
		slurm_why="munged did not start"
		slurm_last_words
		return 1
	fi
	# Another test's cluster may take a port between free_port and bind:
	# then again on other ports.
	for _try in 1 2 3; do
		slurm_conf "$(free_port)" "$(free_port)"
		slurm_daemon slurmctld slurmctld -D -i
		_ctld=$slurm_pid
		slurm_daemon slurmd slurmd -D -N witchnode
		_slurmd=$slurm_pid
		slurm_idle "$_ctld" "$_slurmd" && return 0
		kill -9 "$_ctld" "$_slurmd" 2>/dev/null
		wait "$_ctld" "$_slurmd" 2>/dev/null
	done
	slurm_why="slurmctld and slurmd did not bring the node up in 3 tries"
	slurm_last_words
	return 1
}

# slurm_last_words: the end of each daemon's log, as TAP diagnostics.
slurm_last_words() {
	for _d in munged slurmctld slurmd; do
		_f=$SL/log/$_d.log
		[ -s "$_f" ] || _f=$SL/log/$_d.out
		[ -s "$_f" ] || continue
		diag "${_f##*/}:"
		tail -n 5 "$_f" | while IFS= read -r _l; do diag "  $_l"; done
	done
}

# slurm_srun ARGS...: srun in this cluster (SL_SRUN: the same, for a
# script given SLURM_CONF=$SL_CONF). More tasks than CPUs (--overcommit);
# an allocation that cannot be had at once fails (--immediate) rather than
# waits, and no job outlives 3 minutes.
SL_SRUN="srun --overcommit --immediate=20 --time=3"
slurm_srun() {
	# shellcheck disable=SC2086
	SLURM_CONF=$SL_CONF $SL_SRUN "$@"
}
