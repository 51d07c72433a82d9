/*
 * tunables.h - make glibc run the same string and memory routines natively
 * and under Valgrind, so that `witch record` and `witch spy` see the same
 * code (pairs inside memcpy/memset/strlen... then match).
 */
#ifndef WITCH_TUNABLES_H
#define WITCH_TUNABLES_H

#include <stddef.h>

/* The GLIBC_TUNABLES value witch uses, for this host: the same string in
 * both commands. Returns 0, or -1 if it does not fit. */
int glibc_tunables(char *buf, size_t cap);

/* Put them in the environment, ahead of the user's own GLIBC_TUNABLES
 * (later settings win, so the user's still apply). */
void set_glibc_tunables(void);

#endif
