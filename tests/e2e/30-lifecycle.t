#!/bin/sh
# Every way a program ends leaves a valid profile of what was measured,
# marked complete or incomplete, and the program's own exit status or death
# signal; exec profiles both images; signals the program handles, blocks or
# waits for behave as without witch.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

p=$PROGS/lifecycle

# ending MODE EXPECTED-STATUS EXPECTED-PROFILE-STATUS
ending() {
	"$p" "$1" >"$TMP/n.out" 2>/dev/null
	native=$?
	rm -rf "$TMP/p"
	"$WITCH" record --quiet -o "$TMP/p" -- "$p" "$1" >"$TMP/w.out" 2>/dev/null
	witched=$?
	is "$witched" "$native" "$1: same exit status as without witch ($native)"
	is "$native" "$2" "$1: the status the mode gives"
	cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "$1: same output"
	n=$(ls "$TMP/p" | grep -c '\.witch$')
	is "$n" 1 "$1: one profile"
	"$WITCH" report --format=json "$TMP/p" >"$TMP/r.json" 2>"$TMP/r.err"
	ok $? "$1: the profile reads"
	is "$(json "$TMP/r.json" '.process_details[0].status')" "$3" "$1: marked $3"
	within "$(json "$TMP/r.json" '.totals.samples')" 1 1e9 "$1: it holds the samples taken"
}

ending exit 4 complete
ending return 0 complete
ending _exit 3 complete
ending thread-exit 6 complete
ending segv 139 incomplete
ending fpe 136 incomplete
ending abort 134 incomplete
ending term 143 incomplete
ending int 130 incomplete
# SIGINT ignored from the start (a background job of a shell without job
# control), set back to its default by the program before its death: the
# profile is still written (it was lost).
trap '' INT
ending int 130 incomplete
trap - INT

rm -rf "$TMP/p"
"$WITCH" record --quiet -o "$TMP/p" -- "$p" exec >"$TMP/w.out" 2>/dev/null
is "$?" 0 "exec: exit status of the exec'd program"
is "$(cat "$TMP/w.out")" "exec'd" "exec: the new image ran"
is "$(ls "$TMP/p" | sed 's/-[0-9]*\.witch$//' | sort | tr '\n' ' ')" "echo lifecycle " \
	"exec: profiles of the image before exec and of the exec'd program"
within "$(jq -r '.totals.samples' <<EOF2
$("$WITCH" report --format=json "$TMP"/p/lifecycle-*.witch)
EOF2
)" 1 1e9 "exec: the profile written before exec holds the samples"

"$p" handlers >"$TMP/n.out"
"$WITCH" record --quiet -o "$TMP/ph" -- "$p" handlers >"$TMP/w.out"
cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "handlers: the program sees the dispositions and masks it set"
diag "$(tr '\n' ';' <"$TMP/w.out")"
"$WITCH" report --format=json "$TMP/ph" >"$TMP/h.json"
within "$(json "$TMP/h.json" '.totals.traps')" 1 1e9 "handlers: sampled while the program blocked every signal"

"$p" sleep >"$TMP/n.out"
"$WITCH" record --quiet -o "$TMP/ps" -- "$p" sleep >"$TMP/w.out"
cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "sleep: nanosleep/read loop with SIGALRM/SIGRTMIN handlers unchanged"

rm -rf "$TMP/pf"
"$WITCH" record --quiet -o "$TMP/pf" -- "$p" fork >"$TMP/w.out"
is "$(cat "$TMP/w.out")" "child exited 5" "fork: output"
is "$(ls "$TMP/pf" | grep -c '\.witch$')" 2 "fork: parent and child each write a profile"
child=$(for f in "$TMP"/pf/*.witch; do
	"$WITCH" report --format=json "$f" | jq -r 'select(.totals.traps > 0) | .processes[0]'; done)
[ -n "$child" ]; ok $? "fork: the child's profile has the work ($child)"
done_testing
