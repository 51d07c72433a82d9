#!/bin/sh
# Bounded cost: a recursion 100000 calls deep gets contexts capped at 256
# frames (counted), and witch record adds less than 64 MiB of memory.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

M=$TOP/build/bench/measure
"$M" "$PROGS/recurse" 3>"$TMP/native" >"$TMP/n.out"
"$M" "$WITCH" record --quiet -o "$TMP/p" -- "$PROGS/recurse" 3>"$TMP/witch" >"$TMP/w.out"
read -r _ native_kb st1 <"$TMP/native"
read -r _ witch_kb st2 <"$TMP/witch"
is "$st2" "$st1" "same exit status"
cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "same output"
within "$((witch_kb - native_kb))" -100000 65535 "extra peak memory in KiB ($native_kb -> $witch_kb)"
"$WITCH" report --format=json "$TMP/p" >"$TMP/r.json"
within "$(json "$TMP/r.json" '.totals.stats.frames_truncated')" 1 1e9 "deep paths were capped, and counted"
within "$(json "$TMP/r.json" '.pairs[0].watch | length')" 2 256 "a context has at most 256 frames"
"$WITCH" report "$TMP/p" >"$TMP/r.txt"
like "$(cat "$TMP/r.txt")" 'down → down → … → down' "the text report shortens the chain"
done_testing
