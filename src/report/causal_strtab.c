#include "report/causal_strtab.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int same(const char *a, const char *s, size_t n)
{
	return !strncmp(a, s, n) && a[n] == '\0';
}

static uint32_t lookup(const struct rc_strtab *t, const char *s, size_t n, size_t *slot)
{
	size_t i;

	if (!t->nslots)
		return UINT32_MAX;
	for (i = hash(s, n) & (t->nslots - 1); t->slots[i]; i = (i + 1) & (t->nslots - 1))
		if (same(t->strs[t->slots[i] - 1], s, n))
			return t->slots[i] - 1;
	*slot = i;
	return UINT32_MAX;
}

static int rehash(struct rc_strtab *t)
{
	size_t nslots = t->nslots ? t->nslots * 2 : 64, i, j;
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; i < t->n; i++) {
		for (j = hash(t->strs[i], strlen(t->strs[i])) & (nslots - 1); slots[j];
		     j = (j + 1) & (nslots - 1))
			;
		slots[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	return 0;
}

uint32_t rc_intern_n(struct rc_strtab *t, const char *s, size_t n)
{
	size_t slot = 0;
	uint32_t id;
	char *copy;

	n = strnlen(s, n);	/* a string ends at its first NUL, also in a table */
	id = lookup(t, s, n, &slot);
	if (id != UINT32_MAX)
		return id;
	if ((t->n + 1) * 2 > t->nslots) {
		if (rehash(t))
			return UINT32_MAX;
		lookup(t, s, n, &slot);
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;
		char **a = realloc(t->strs, cap * sizeof(*a));

		if (!a)
			return UINT32_MAX;
		t->strs = a;
		t->cap = cap;
	}
	copy = strndup(s, n);
	if (!copy)
		return UINT32_MAX;
	t->strs[t->n] = copy;
	t->slots[slot] = (uint32_t)++t->n;
	return (uint32_t)(t->n - 1);
}

uint32_t rc_intern(struct rc_strtab *t, const char *s)
{
	return rc_intern_n(t, s, strlen(s));
}

void rc_strtab_free(struct rc_strtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
