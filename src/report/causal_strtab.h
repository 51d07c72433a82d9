/*
 * causal_strtab.h - interned strings for the causal side: file names, line
 * locations ("file.c:42"), progress point names. Each distinct string gets a
 * small dense id, so that tables elsewhere can be plain arrays.
 */
#ifndef WITCH_CAUSAL_STRTAB_H
#define WITCH_CAUSAL_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct rc_strtab {
	char **strs;		/* by id */
	size_t n, cap;
	uint32_t *slots;	/* open addressing: id + 1, 0 = empty */
	size_t nslots;
};

/* The id of s (n bytes), adding a copy when new; UINT32_MAX when out of memory. */
uint32_t rc_intern_n(struct rc_strtab *t, const char *s, size_t n);
uint32_t rc_intern(struct rc_strtab *t, const char *s);

void rc_strtab_free(struct rc_strtab *t);

#endif
