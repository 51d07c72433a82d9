/*
 * causal_notes.c - the messages about --progress lines (causal_notes.h).
 */
#include "cli/causal_notes.h"
#include "cli/oneline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int take_one(struct causal_note *n, const struct causal_lines *t,
		    const struct causal_point *pt, const char *spec)
{
	char where[1024], one[512];
	size_t i;

	causal_lines_places_text(t, pt, where, sizeof(where));
	for (i = 0; i < pt->n; i++)
		if (t->bps[pt->first + i].addr == pt->again) {
			causal_lines_place_text(t, &t->bps[pt->first + i], one, sizeof(one));
			if (!(n->again = strdup(one)))
				return -1;
		}
	n->spec = strdup(spec);
	n->name = strdup(t->files.strs[pt->name]);
	n->where = strdup(where);
	if (!n->spec || !n->name || !n->where)
		return -1;
	for (i = 0; i < pt->nnear; i++)
		if (!(n->near[n->nnear++] = strdup(t->locs.strs[pt->near[i]])))
			return -1;
	return 0;
}

int causal_notes_take(struct causal_notes *cn, const struct causal_lines *t, char *const *specs)
{
	size_t i;

	cn->n = calloc(t->npoints ? t->npoints : 1, sizeof(*cn->n));
	cn->count = t->npoints;
	if (!cn->n) {
		cn->count = 0;
		return -1;
	}
	for (i = 0; i < t->npoints; i++)
		if (take_one(&cn->n[i], t, &t->points[i], specs[i]))
			return -1;
	return 0;
}

void causal_notes_warn(const struct causal_notes *cn, const char *who)
{
	size_t i;

	for (i = 0; i < cn->count; i++)
		if (cn->n[i].again)
			cli_fail(who, 0, "warning: --progress=%s: a visit of %s that starts "
					 "elsewhere may pass %s too, and then counts twice",
				 cn->n[i].spec, cn->n[i].name, cn->n[i].again);
}

static uint64_t visits(const struct rc_profile *p, const struct rc_analysis *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->npoints; i++)
		if (!a->points[i].latency && !strcmp(p->names.strs[a->points[i].name], name))
			return a->points[i].visits;
	return 0;
}

/* Samples in the line's code or in code it called: whether it ran. */
static uint64_t samples(const struct rc_profile *p, const char *loc)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->nsamples; i++)
		if (!strcmp(p->names.strs[p->samples[i].line], loc))
			n += p->samples[i].count;
	for (i = 0; i < p->ncallers; i++)
		if (!strcmp(p->names.strs[p->callers[i].line], loc))
			n += p->callers[i].count;
	return n;
}

/* "lines near it that ran: a.c:8, a.c:12", or why none is named. */
static void put_near(const struct causal_note *n, const struct rc_profile *p, char *buf,
		     size_t cap)
{
	size_t i, used = 0, ran = 0;

	buf[0] = '\0';
	for (i = 0; i < n->nnear && used < cap; i++)
		if (samples(p, n->near[i]))
			used += (size_t)snprintf(buf + used, cap - used, "%s%s",
						 ran++ ? ", " : "; lines near it that ran: ",
						 n->near[i]);
	if (ran)
		snprintf(buf + used, used < cap ? cap - used : 0, " (give one of them to --progress)");
	else if (n->nnear)
		snprintf(buf, cap, "; no line near it had samples either");
}

size_t causal_notes_unreached(const struct causal_notes *cn, const struct rc_profile *p,
			      const struct rc_analysis *a, const char *who)
{
	char near[4096];
	size_t i, said = 0;

	for (i = 0; i < cn->count; i++) {
		const struct causal_note *n = &cn->n[i];

		if (visits(p, a, n->name))
			continue;
		put_near(n, p, near, sizeof(near));
		cli_fail(who, 0, "--progress=%s was never reached: no visit of %s at %s during the "
				 "experiments%s",
			 n->spec, n->name, n->where, near);
		said++;
	}
	return said;
}

void causal_notes_free(struct causal_notes *cn)
{
	size_t i, j;

	for (i = 0; i < cn->count; i++) {
		free(cn->n[i].spec);
		free(cn->n[i].name);
		free(cn->n[i].where);
		free(cn->n[i].again);
		for (j = 0; j < cn->n[i].nnear; j++)
			free(cn->n[i].near[j]);
	}
	free(cn->n);
	memset(cn, 0, sizeof(*cn));
}
