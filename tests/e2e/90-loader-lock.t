#!/bin/sh
# Samples and traps that interrupt a thread taking or releasing the
# dynamic loader's lock (dl_iterate_phdr, dlopen, dlclose) must not
# unwind: libunwind takes that lock too, and the program waited for ever
# (an Open MPI rank, which dlopens its components, hung, and so did
# phdr_loop under --craft=dead before loaderlock.c).
. "$(dirname "$0")/lib.sh"
needs_debug_registers

for craft in dead load; do
	for i in 1 2 3 4; do
		out=$(timeout -s KILL 60 "$WITCH" record --quiet --craft=$craft -o "$TMP/$craft$i" -- \
			"$PROGS/phdr_loop" 300000)
		is "$?:$out" "0:1" "--craft=$craft, run $i: ends, its output unchanged"
	done
	"$WITCH" report --format=json "$TMP/${craft}1" >"$TMP/$craft.json"
	# Held with its owner recorded, the lock is the thread's own again
	# (recursive): samples in the callbacks are still unwound and watched.
	within "$(json "$TMP/$craft.json" '.totals.watchpoints_armed')" 1 1e12 \
		"--craft=$craft: watches armed in the loader's callbacks"
done
done_testing
