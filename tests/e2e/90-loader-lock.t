#!/bin/sh
# Samples and traps that interrupt the dynamic loader while it holds its
# lock (dl_iterate_phdr, dlopen, dlclose) must not unwind: libunwind
# takes that lock too, and the program waited for ever (an Open MPI
# program, which dlopens its components, hung; phdr_loop hung in 3 of 6
# runs under --craft=dead before loader.c).
. "$(dirname "$0")/lib.sh"
needs_debug_registers

for craft in dead load; do
	for i in 1 2 3 4; do
		out=$(timeout -s KILL 60 "$WITCH" record --quiet --craft=$craft -o "$TMP/$craft$i" -- \
			"$PROGS/phdr_loop" 300000)
		is "$?:$out" "0:1" "--craft=$craft, run $i: ends, its output unchanged"
	done
	"$WITCH" report --format=json "$TMP/${craft}1" >"$TMP/$craft.json"
	# Nearly all its time is in dl_iterate_phdr: its samples stand for
	# no access, as where the stack cannot be unwound.
	within "$(json "$TMP/$craft.json" '.totals.samples')" 10 1e12 "--craft=$craft: sampled"
	within "$(json "$TMP/$craft.json" \
		'.totals.stats.samples_unwind_failed / .totals.samples')" 0.8 1 \
		"--craft=$craft: samples in the loader's calls are not unwound"
done
done_testing
