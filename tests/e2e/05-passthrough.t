#!/bin/sh
# The target's stdin, stdout, stderr, arguments and exit status (or death
# signal) are the same with and without witch record.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

p=$PROGS/passthrough
printf 'one\ntwo words\n' >"$TMP/in"

"$p" 3 0 'a b' '' 'c"d' <"$TMP/in" >"$TMP/n.out" 2>"$TMP/n.err"
native=$?
"$WITCH" record --quiet -o "$TMP/p" -- "$p" 3 0 'a b' '' 'c"d' <"$TMP/in" >"$TMP/w.out" 2>"$TMP/w.err"
witched=$?
is "$witched" "$native" "exit status passes through ($native)"
cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "stdout is identical (stdin and arguments passed)"
cmp -s "$TMP/n.err" "$TMP/w.err"; ok $? "stderr is identical"
is "$(ls "$TMP/p" | grep -c '\.witch$')" 1 "one profile for one process"

"$p" 0 15 </dev/null >/dev/null 2>&1
native=$?
"$WITCH" record --quiet -o "$TMP/p2" -- "$p" 0 15 </dev/null >/dev/null 2>&1
is "$?" "$native" "death by SIGTERM passes through ($native)"

"$WITCH" record -o "$TMP/p3" -- "$p" 0 </dev/null >/dev/null 2>"$TMP/summary"
like "$(cat "$TMP/summary")" "witch record: 1 profile in $TMP/p3" "without --quiet, a summary line names the profile"

cd "$TMP" && "$WITCH" record --quiet -- "$p" </dev/null >/dev/null 2>&1
ok $? "default output directory"
is "$(ls "$TMP/witch-passthrough-dead" | grep -c '\.witch$')" 1 "default directory is witch-PROGRAM-CRAFT"
done_testing
