# lib.sh - the tiny TAP harness of the end-to-end tests (sourced).
#
# Each tests/e2e/*.t is a shell script: it calls ok/is/like, and `done_testing`
# at the end prints the plan. Programs under test are in build/progs, witch is
# build/bin/witch (or $WITCH when set, to test an installed copy).

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
WITCH=${WITCH:-$TOP/build/bin/witch}
PROGS=$TOP/build/progs
TMP=$(mktemp -d "${TMPDIR:-/tmp}/witch-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
_n=0
_failed=0

ok() {	# ok CONDITION-EXIT-STATUS DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_n - $2"
	else
		echo "not ok $_n - $2"
		_failed=$((_failed + 1))
	fi
}

is() {	# is GOT EXPECTED DESCRIPTION
	if [ "$1" = "$2" ]; then ok 0 "$3"; else
		ok 1 "$3"
		echo "#   got:      '$1'"
		echo "#   expected: '$2'"
	fi
}

like() {	# like TEXT EXTENDED-REGEX DESCRIPTION
	if printf '%s' "$1" | grep -Eq -- "$2"; then ok 0 "$3"; else
		ok 1 "$3"
		echo "#   '$1'"
		echo "#   does not match /$2/"
	fi
}

# within VALUE LOW HIGH DESCRIPTION (numbers may be fractional)
within() {
	if awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; then
		ok 0 "$4 ($1 in [$2, $3])"
	else
		ok 1 "$4 ($1 not in [$2, $3])"
	fi
}

diag() { echo "# $*"; }

# within_todo_with_pages V LO HI NAME: `within`, except that under
# --watch=pages a miss is a TAP TODO (reported by prove, not a failure): a
# sampled-accuracy target page protection is known not to meet reliably
# yet (its samples do not yet follow program time, and it samples at 250 Hz
# at most), measured and reported on every run.
within_todo_with_pages() {
	if [ "$WATCH_MODE" != pages ]; then
		within "$@"
		return
	fi
	_n=$((_n + 1))
	if awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; then
		echo "ok $_n - $4 ($1 in [$2, $3]) # TODO --watch=pages"
	else
		echo "not ok $_n - $4 ($1 not in [$2, $3]) # TODO --watch=pages: not met yet"
		printf "\n%s: TODO under --watch=pages: %s (%s not in [%s, %s])\n" "$(basename "$0")" "$4" "$1" "$2" "$3" >&2
	fi
}

done_testing() {
	echo "1..$_n"
	[ "$_failed" -eq 0 ]
}

# json FILE JQ-FILTER: one value from a JSON report
json() { jq -r "$2" "$1"; }

# Hand-written profiles whose contexts are code of witch itself, which has
# debug information: BIN, its module path escaped as profiles write it
# (MODULE), and sym NAME, the offset of its function NAME (hex).
BIN=$TOP/build/bin/witch
MODULE=$(printf '%s' "$BIN" | sed 's/%/%25/g; s/ /%20/g')
sym() { nm "$BIN" | awk -v s="$1" '$3 == s { sub(/^0+/, "", $1); print $1; exit }'; }

# Line number of the line containing MARKER in a source file.
line_of() { grep -n -- "$2" "$1" | head -n 1 | cut -d: -f1; }

# bounded SECONDS CMD...: run CMD in a process group of its own; after
# SECONDS kill the whole group (a hung target included). Status 137 then.
bounded() {
	_secs=$1
	shift
	setsid "$@" &
	_pid=$!
	# Its output goes nowhere: a leftover sleep must not hold prove's pipe open.
	# No `--` before the group: dash's kill took it for a bad number and
	# killed nothing, so no bound held (a hung run waited for good).
	( sleep "$_secs"; kill -9 -"$_pid" ) >/dev/null 2>&1 &
	_dog=$!
	wait "$_pid"
	_st=$?
	kill "$_dog" 2>/dev/null
	wait "$_dog" 2>/dev/null
	return $_st
}

# expect_error DESCRIPTION REGEX CMD...: CMD fails (not by a crash), with
# exactly one line on stderr that matches REGEX.
expect_error() {
	desc=$1 re=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	[ "$st" -ne 0 ] && [ "$st" -lt 128 ]; ok $? "$desc: non-zero exit, no crash ($st)"
	is "$(wc -l <"$TMP/err" | tr -d ' ')" 1 "$desc: exactly one line on stderr"
	like "$(cat "$TMP/err")" "$re" "$desc: says what is wrong"
}

# Hardware debug registers that fire are a property of the machine: a VM
# resumed from a snapshot (seen under the PVM hypervisor) opens breakpoints
# that never trap. build/progs/dr_probe, which shares no code with witch,
# tells such a machine from a bug in witch.
debug_registers_fire() { "$PROGS/dr_probe" >/dev/null 2>&1; }

# Where they do not, witch causal --progress counts visits with uprobes,
# which need the kernel's uprobe PMU and root or CAP_PERFMON;
# build/progs/uprobe_probe, sharing no code with witch either, tells.
uprobes_count() { "$PROGS/uprobe_probe" >/dev/null 2>&1; }

# progress_counters: the ways this machine counts --progress visits
# (breakpoint, uprobe), each that works; empty when neither does.
progress_counters() {
	_c=
	debug_registers_fire && _c=breakpoint
	uprobes_count && _c="${_c:+$_c }uprobe"
	echo "$_c"
}

# refuses_without_debug_registers: on such a machine witch record
# --watch=registers must say so in one line, exit non-zero and leave no
# profile.
refuses_without_debug_registers() {
	expect_error "debug registers that do not fire: witch record --watch=registers refuses" \
		'debug registers|breakpoints' "$WITCH" record --watch=registers -o "$TMP/refused" \
		-- "$PROGS/demo"
	[ -z "$(ls "$TMP/refused" 2>/dev/null)" ]; ok $? "and writes no profile"
}

# needs_debug_registers: the rest of this file measures with witch record.
# Where the debug registers do not fire, check the refusal of
# --watch=registers; the rest of the file runs with what witch record
# chooses then, page protection (WATCH_MODE=pages tells the checks).
WATCH_MODE=registers
needs_debug_registers() {
	debug_registers_fire && return 0
	refuses_without_debug_registers
	WATCH_MODE=pages
}

# registers_only WHAT: false, with WHAT marked skipped, for a check page
# protection cannot make (it watches only while the program has one
# thread): `if registers_only "..."; then checks; fi`.
registers_only() {
	[ "$WATCH_MODE" = registers ] && return 0
	skip "$* (--watch=pages watches only single-threaded programs; $("$PROGS/dr_probe"))"
	return 1
}

# skip WHAT-AND-WHY: a check this machine cannot make. prove counts skips
# quietly, so it is said on stderr too, where the test log shows it.
skip() {
	_n=$((_n + 1))
	echo "ok $_n # skip $*"
	printf "\n%s: skipped: %s\n" "$(basename "$0")" "$*" >&2
}

# refused_record_options PROGRAM "OPTIONS"...: each set of witch record
# options is bad input: exit 2, a one-line error, and no output directory.
refused_record_options() {
	_prog=$1
	shift
	for _bad in "$@"; do
		# shellcheck disable=SC2086
		"$WITCH" record $_bad -o "$TMP/bad" -- "$_prog" 10 >/dev/null 2>"$TMP/err"
		is $? 2 "$_bad: exit 2"
		is "$(wc -l <"$TMP/err")" 1 "$_bad: one line"
	done
	[ ! -e "$TMP/bad" ]
	ok $? "no output directory is left by bad options"
}
