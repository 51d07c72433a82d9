#!/bin/sh
# A timer sample stands for the next access of the wanted kind, wherever
# the thread makes it: the walk follows returns, indirect jumps (and, for
# stores, calls). With --reach=0 here: the walk's way is what is checked,
# not which samples the default reach of 8 instructions keeps (test 44).
# aftercall stores right after a call to a slow function that stores
# nothing (a[], dead), and right after the same code inlined (b[], used):
# half of the bytes stored are dead. When the walk stopped at the return,
# 88 % of the samples found no store and a[] got 7 % of the judged bytes
# (the sampled dead fraction) against the truth's 49 %. Now no sample
# misses, and a[] gets the time before it: 50-67 % in 80 quiet runs, up to
# 78 % in a CI run (the call and the loop add time before a[]; samples
# weigh sites by time, not count), so only a floor and a ceiling are
# checked.
. "$(dirname "$0")/lib.sh"
needs_debug_registers

"$WITCH" record --quiet --craft=dead --rate=4000 --reach=0 -o "$TMP/s" -- "$PROGS/aftercall" 20000000 >/dev/null
ok $? "witch record --craft=dead aftercall"
"$WITCH" spy --quiet --tool=dead -o "$TMP/e" -- "$PROGS/aftercall" 100000 >/dev/null
ok $? "witch spy --tool=dead aftercall"
"$WITCH" report --format=json "$TMP/s" >"$TMP/r.json"
within "$(json "$TMP/r.json" '100 * .totals.stats.samples_no_access / .totals.stats.samples')" 0 10 \
	"aftercall: at most 10 % of the samples find no store"
"$WITCH" compare --format=json "$TMP/s" "$TMP/e" >"$TMP/c.json"
ok $? "witch compare"
within "$(json "$TMP/c.json" '100 * .sampled.redundancy')" 25 95 \
	"aftercall: the store after the call gets its samples (sampled dead fraction %)"

# dispatch stores only after a jump table's `jmp *%reg`, as an interpreter
# does; the walk follows it with the registers right before it. When it
# stopped there, 84 % of the samples found no store; now none.
"$PROGS/dispatch" 2000000 >"$TMP/n.out"
"$WITCH" record --quiet --craft=dead --rate=4000 --reach=0 -o "$TMP/d" -- "$PROGS/dispatch" 2000000 >"$TMP/w.out"
ok $? "witch record --craft=dead dispatch"
cmp -s "$TMP/n.out" "$TMP/w.out"
ok $? "dispatch: same output"
"$WITCH" record --quiet --craft=dead --rate=4000 --reach=0 -o "$TMP/d2" -- "$PROGS/dispatch" 20000000 >/dev/null
"$WITCH" report --format=json "$TMP/d2" >"$TMP/d.json"
within "$(json "$TMP/d.json" '100 * .totals.stats.samples_no_access / .totals.stats.samples')" 0 10 \
	"dispatch: at most 10 % of the samples find no store"
# fnptr stores and loads only in functions it calls through a table of
# function pointers (`call *(%r12,%rax,8)`), as an interpreter calls its
# ops; the walk follows the call with the registers right before it. When
# it stopped there, 93 % of the store samples and all load samples that
# met the call were dropped (skipped as the call's own push or load).
# With --spread=1, each sample stands for the next access: with the
# default draw among 16, load samples also stand for the loop's own loads
# after the call (46 % of traps in the callees in one run), as they should.
for craft in dead load; do
	"$WITCH" record --quiet --craft=$craft --rate=4000 --reach=0 --spread=1 -o "$TMP/f$craft" -- "$PROGS/fnptr" 3000000 >/dev/null
	ok $? "witch record --craft=$craft fnptr"
	"$WITCH" report --format=json "$TMP/f$craft" >"$TMP/f.json"
	within "$(json "$TMP/f.json" '100 * (.totals.stats.samples_no_access + .totals.stats.samples_skipped_implicit) / .totals.stats.samples')" 0 10 \
		"fnptr $craft: at most 10 % of the samples find no access"
	within "$(json "$TMP/f.json" '100 * ([.pairs[] | select(.watch[0].function | test("^op[0-7]$")) | .traps] | add) / ([.pairs[].traps] | add)')" 90 100 \
		"fnptr $craft: the accesses watched are the callees' (% of traps)"
done
done_testing
