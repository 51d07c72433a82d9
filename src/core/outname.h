/*
 * outname.h - the names of the files a process leaves in the output
 * directory: DIR/STEM<sep>PID, then <sep>N when an earlier image of the
 * same process (before an exec) already left one, then SUFFIX:
 * app-123.witch, app-123-1.witch; causal.123, causal.123.1. A process a
 * launcher started (a rank of a parallel job, core/job.h) has its host
 * and rank before the pid, so that the ranks of many machines writing
 * into one directory never take each other's names:
 * app-hnode7-r3-123.witch, causal.hnode7.r3.123. Freestanding: the
 * Valgrind tool names its profiles with it too.
 */
#ifndef WITCH_CORE_OUTNAME_H
#define WITCH_CORE_OUTNAME_H

#include <stddef.h>
#include <stdint.h>

#include "core/job.h"

struct core_outname {
	const char *dir;
	const char *stem;	/* the program's name, "causal" */
	char sep;		/* '-' or '.' */
	uint64_t pid;
	const char *suffix;	/* ".witch", "" */
	const struct core_job *job;	/* NULL, or rank -1: no host and rank */
};

/* Name number n (0: none) into dst, cut to cap - 1 bytes. */
void core_outname_put(const struct core_outname *o, unsigned n, char *dst, size_t cap);

/* The lowest number whose name is free (exists says whether a file has
 * it; 999 when none below is), with that name in dst. */
unsigned core_outname_free(const struct core_outname *o, char *dst, size_t cap,
			   int (*exists)(const char *path));

/*
 * Where the tail <sep>r<RANK><sep><PID>[<sep><N>]<suffix> of the file
 * name (no directory) starts, with RANK in *rank; -1 when the name does
 * not end so (a name without a rank). Read from the right, the tail is
 * never ambiguous, whatever the host or the program is called.
 */
long core_outname_rank_tail(const char *name, char sep, const char *suffix, uint64_t *rank);

/* Whether the file name is one that job's host and rank give (with any
 * stem, pid and number): the files of one rank among all ranks'. */
int core_outname_of_job(const char *name, char sep, const char *suffix, const struct core_job *job);

#endif
