#!/bin/sh
# Threads: every thread is sampled from its first instruction with its own
# timer and watchpoints; four threads with a dead-store site each are all
# reported in their own contexts; 300 short-lived threads run unchanged; with
# too few file descriptors, threads go unsampled with a warning, never a crash.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

p=$PROGS/threads
"$p" >"$TMP/n.out"
"$WITCH" record --quiet --rate=1000 -o "$TMP/p" -- "$p" >"$TMP/w.out"
ok $? "witch record runs 4 threads"
cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "same output"
"$WITCH" report --format=json --top=0 "$TMP/p" >"$TMP/r.json"
is "$(json "$TMP/r.json" '.totals.threads')" 5 "main thread and 4 workers in the profile"
if registers_only "site0-3 KILLED_BY overwrite in their worker threads"; then
	for k in 0 1 2 3; do
		n=$(jq -r --arg f "site$k" '[.pairs[] | select(.watch[0].function == $f and .trap[0].function == "overwrite"
			and .watch[1].function == "worker" and .waste_bytes > 0)] | length' "$TMP/r.json")
		within "$n" 1 1000 "site$k KILLED_BY overwrite, in its worker thread's context"
	done
fi

"$p" many >"$TMP/n.out"
"$WITCH" record --quiet -o "$TMP/pm" -- "$p" many >"$TMP/w.out"
ok $? "300 short-lived threads"
cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "same output"
"$WITCH" report --format=json "$TMP/pm" >"$TMP/m.json"
is "$(json "$TMP/m.json" '.totals.threads')" 301 "every thread is in the profile"

# 64 descriptors: witch may use 16, four threads' worth; the rest go unsampled.
(ulimit -n 64; "$WITCH" record -o "$TMP/pl" -- "$p" >"$TMP/l.out" 2>"$TMP/l.err")
ok $? "with ulimit -n 64 the program still runs"
"$p" | cmp -s - "$TMP/l.out"; ok $? "and prints the same"
like "$(cat "$TMP/l.err")" 'threads? (was|were) not sampled' "a warning says threads were not sampled"
"$WITCH" report --format=json "$TMP/pl" >"$TMP/l.json"
within "$(json "$TMP/l.json" '.totals.stats.threads_unsampled')" 1 4 "the profile counts them"
done_testing
