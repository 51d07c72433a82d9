/*
 * outname.h - the names of the files a process leaves in the output
 * directory: DIR/STEM<sep>PID, then <sep>N when an earlier image of the
 * same process (before an exec) already left one, then SUFFIX:
 * app-123.witch, app-123-1.witch; causal.123, causal.123.1. Freestanding:
 * the Valgrind tool names its profiles with it too.
 */
#ifndef WITCH_CORE_OUTNAME_H
#define WITCH_CORE_OUTNAME_H

#include <stddef.h>
#include <stdint.h>

struct core_outname {
	const char *dir;
	const char *stem;	/* the program's name, "causal" */
	char sep;		/* '-' or '.' */
	uint64_t pid;
	const char *suffix;	/* ".witch", "" */
};

/* Name number n (0: none) into dst, cut to cap - 1 bytes. */
void core_outname_put(const struct core_outname *o, unsigned n, char *dst, size_t cap);

/* The lowest number whose name is free (exists says whether a file has
 * it; 999 when none below is), with that name in dst. */
unsigned core_outname_free(const struct core_outname *o, char *dst, size_t cap,
			   int (*exists)(const char *path));

#endif
