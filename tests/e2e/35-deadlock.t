#!/bin/sh
# Regressions: libunwind blocks every signal around its locks. When witch's
# sigprocmask wrapper unblocked witch's own signals there, a sample could
# interrupt the unwinder holding its lock and deadlock (seen on fig2 at
# 2000 Hz). Both witch's own unwinding and a program's are checked.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

for i in 1 2 3; do
	bounded 120 "$WITCH" record --quiet --rate=4000 -o "$TMP/p$i" -- "$PROGS/fig2" 20 >/dev/null
	is "$?" 0 "fig2 at 4000 Hz finishes (run $i)"
done
"$PROGS/unwinds" >"$TMP/n.out"
bounded 120 "$WITCH" record --quiet --rate=4000 -o "$TMP/u" -- "$PROGS/unwinds" >"$TMP/w.out"
is "$?" 0 "a program using libunwind itself finishes at 4000 Hz"
cmp -s "$TMP/n.out" "$TMP/w.out"; ok $? "with the same output"
done_testing
