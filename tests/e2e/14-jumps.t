#!/bin/sh
# Loads made by jumps through memory, as every call into a shared library
# makes through its PLT slot. jmpmem tail-calls through a function pointer
# that never changes: LoadCraft samples that jump's load (it is watched
# from before it runs: no instruction after it is reached) and finds it
# redundant, as LoadSpy does. fpstore stores a function pointer and then
# jumps through it: the jump lands at a function's entry, where a trap
# otherwise means a call pushing its return address; it is a load, so
# every store to the pointer is used (witch once called all of them dead). pltcall calls
# into libc through the PLT: a sample before the call walks into the callee
# and finds its stub's jump, and LoadSpy names the stub by the program's
# module (it once named it nowhere, '??').
. "$(dirname "$0")/lib.sh"
needs_debug_registers

"$WITCH" record --quiet --craft=load --rate=4000 -o "$TMP/j" -- "$PROGS/jmpmem" 300000000 >/dev/null
ok $? "witch record --craft=load jmpmem"
"$WITCH" report --format=json "$TMP/j" >"$TMP/j.json"
is "$(json "$TMP/j.json" '.pairs[0].watch[0].function') $(json "$TMP/j.json" '.pairs[0].trap[0].function')" \
	"call call" "the jump's load is redundantly loaded by the jump"
within "$(json "$TMP/j.json" '.totals.redundancy')" 0.95 1 "jumps through an unchanging pointer: redundant"
within_todo_with_pages "$(json "$TMP/j.json" ".totals.stats.self_traps")" 5 1e12 "the sampled jump's own load is skipped"

"$WITCH" spy --quiet --tool=load -o "$TMP/je" -- "$PROGS/jmpmem" 2000000 >/dev/null
ok $? "witch spy --tool=load jmpmem"
"$WITCH" compare --format=json "$TMP/j" "$TMP/je" >"$TMP/jc.json"
is "$(json "$TMP/jc.json" '.found') of $(json "$TMP/jc.json" '.top')" "1 of 1" \
	"LoadSpy's top pair is the jump's, and the sampled run has it"
within "$(json "$TMP/jc.json" '.difference_points | if . < 0 then -. else . end')" 0 5 \
	"sampled and exhaustive agree within 5 points"

"$WITCH" record --quiet --craft=dead --rate=4000 -o "$TMP/f" -- "$PROGS/fpstore" 300000000 >/dev/null
ok $? "witch record --craft=dead fpstore"
"$WITCH" report --format=json "$TMP/f" >"$TMP/f.json"
within "$(json "$TMP/f.json" '.totals.traps')" 50 1e12 "the pointer's stores were judged"
# The pointer's stores alone: a sample may land in libc's exit path, whose
# stack stores are dead indeed (printf's, overwritten by _dl_fini's).
fp_line=$(line_of "$TOP/tests/progs/fpstore.c" 'fp = (i & 1)')
fp_pairs='[.pairs[] | select(.watch[0].function == "main" and .watch[0].line == '$fp_line')]'
is "$(json "$TMP/f.json" "$fp_pairs | map(.waste_bytes) | add")" 0 \
	"no store to the pointer is dead: the jump reads each"
within "$(json "$TMP/f.json" "$fp_pairs | map(.use_bytes) | add")" 400 1e12 "and they were judged used"
within "$(json "$TMP/f.json" '.totals.redundancy')" 0 0.01 "nothing else is dead but a sample's worth"
is "$(json "$TMP/f.json" '.totals.stats.traps_unresolved')" 0 "the jump through the pointer is named"
plt=$(objdump -d "$PROGS/pltcall" | sed -n 's/^0*\([0-9a-f]*\) <rand_r@plt>:$/0x\1/p')
"$WITCH" record --quiet --craft=load --rate=4000 -o "$TMP/p" -- "$PROGS/pltcall" >/dev/null
ok $? "witch record --craft=load pltcall"
"$WITCH" report --format=json "$TMP/p" >"$TMP/p.json"
is "$(json "$TMP/p.json" '.pairs[0].watch[0].offset') $(json "$TMP/p.json" '.pairs[0].watch[1].function')" \
	"$plt main" "the top pair is the PLT stub's load, called from main"
"$WITCH" spy --quiet --tool=load -o "$TMP/pe" -- "$PROGS/pltcall" 300000 >/dev/null
ok $? "witch spy --tool=load pltcall"
"$WITCH" report --format=json "$TMP/pe" >"$TMP/pe.json"
is "$(json "$TMP/pe.json" '.pairs[0].watch[0].offset') $(json "$TMP/pe.json" '.pairs[0].watch[0].module | split("/") | last')" \
	"$plt pltcall" "LoadSpy names the stub by its module"
"$WITCH" compare --format=json "$TMP/p" "$TMP/pe" >"$TMP/pc.json"
is "$(json "$TMP/pc.json" '.found') of $(json "$TMP/pc.json" '.top')" "1 of 1" "the two runs' stub pairs match"
done_testing
