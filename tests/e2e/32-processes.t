#!/bin/sh
# Processes: shells and their children are profiled, one file per process;
# witch report merges them or shows one (--pid); --no-follow keeps to the
# first process.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

"$WITCH" record --quiet -o "$TMP/p" -- sh -c "'$PROGS/listing2' 200 >/dev/null; '$PROGS/nodead' 200 >/dev/null"
ok $? "witch record -- sh -c 'prog1; prog2'"
ls "$TMP/p" | grep -q '^listing2-.*\.witch$'; ok $? "a profile of the first program"
ls "$TMP/p" | grep -q '^nodead-.*\.witch$'; ok $? "a profile of the second program"
"$WITCH" report --format=json "$TMP/p" >"$TMP/all.json"
within "$(json "$TMP/all.json" '.processes | length')" 2 3 "the report merges the processes"
pid=$(ls "$TMP/p" | sed -n 's/^listing2-\([0-9]*\)\.witch$/\1/p')
"$WITCH" report --format=json --pid="$pid" "$TMP/p" >"$TMP/one.json"
is "$(json "$TMP/one.json" '.processes | join(",")')" "$pid" "--pid selects one process"
is "$(json "$TMP/one.json" '.pairs[0].watch[0].function')" first "and its pairs"
"$WITCH" report --pid=1 "$TMP/p" >/dev/null 2>"$TMP/err"
[ $? -ne 0 ]; ok $? "--pid of no profile is an error"

"$WITCH" record --quiet --no-follow -o "$TMP/nf" -- sh -c "'$PROGS/listing2' 200 >/dev/null"
is "$(ls "$TMP/nf" | grep -c '\.witch$')" 1 "--no-follow: only the first process"
ls "$TMP/nf" | grep -q '^sh-'; ok $? "--no-follow: and that is the shell"

"$WITCH" record --quiet -o "$TMP/pipe" -- sh -c "'$PROGS/passthrough' 0 0 x </dev/null 2>/dev/null | '$PROGS/passthrough' 7 >'$TMP/pipe.out' 2>/dev/null"
is "$?" 7 "witch record -- sh -c 'a | b': the pipeline's status"
like "$(cat "$TMP/pipe.out")" 'got: arg 3: \[x\]' "data flows through the pipe"
within "$(ls "$TMP/pipe" | grep -c '^passthrough-.*\.witch$')" 2 2 "both ends of the pipe left a profile"

printf 'all: a b\na:\n\t%s 150 >/dev/null\nb:\n\t%s 150 >/dev/null\n' "$PROGS/listing2" "$PROGS/nodead" >"$TMP/Makefile"
"$WITCH" record --quiet -o "$TMP/mk" -- make -s -j2 -C "$TMP" >/dev/null
ok $? "witch record -- make -j2"
within "$(ls "$TMP/mk" | grep -c '\.witch$')" 3 20 "make and the programs it ran each left a profile"
done_testing
