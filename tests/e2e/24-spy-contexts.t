#!/bin/sh
# witch spy's calling contexts come from a shadow call stack: one store
# instruction reached from two callers gives two contexts, and a longjmp or
# a signal handler leaves no stale frames.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/spy-lib.sh"

p=$PROGS/spy_ctx
"$WITCH" spy --quiet -o "$TMP/c" -- "$p" >"$TMP/out"
ok $? "witch spy runs spy_ctx"
is "$(cat "$TMP/out")" "3 10" "output passes through (the handler ran)"
"$WITCH" report --format=json --top=0 "$TMP/c" >"$TMP/r.json"
sel() { jq -r "[.pairs[] | select(.watch[0].function == \"$1\" and .watch[1].function == \"$2\" and .trap[0].function == \"$3\")][0] | $4" "$TMP/r.json"; }
is "$(sel leaf_store via_a leaf_store '[.trap[1].function, .trap[2].function, .waste_bytes] | join(" ")')" \
	"via_b main 512" "via_a -> leaf_store KILLED_BY via_b -> leaf_store, 512 bytes"
is "$(sel leaf_store via_b after '[.trap[1].function, .waste_bytes] | join(" ")')" \
	"main 512" "after the longjmp and the signal: main -> after, no stale frames"
is "$(sel leaf_store via_a leaf_store '.watch[2].function')" main "via_a's caller is main"
is "$(jq -r '[.pairs[] | select(.trap[0].function == "after" or .trap[0].function == "main") | .trap[].function | select(. == "deep" or . == "deeper" or . == "on_signal")] | length' "$TMP/r.json")" 0 \
	"no context after the longjmp or the handler runs through deep, deeper or on_signal"
# The handler's store is read by main: the pair is on_signal -> main, and
# the handler's context continues with the code it interrupted.
is "$(spy_pairs "$p" "$TMP/c" | awk '$1 == "on_signal" { print $2, $4 + 0 }')" "main 4" \
	"the handler's 4-byte store is used by main"
done_testing
