/*
 * ranks.c - the ranks and hosts of the merged processes (ranks.h).
 */
#include "report/ranks.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

static int by_rank(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

long wr_rank_list(const struct wr_report *r, int64_t **out, size_t *unranked)
{
	int64_t *v = malloc((r->nprocs ? r->nprocs : 1) * sizeof(*v));
	size_t i, n = 0, k = 0;

	if (unranked)
		*unranked = 0;
	if (!v)
		return -1;
	for (i = 0; i < r->nprocs; i++) {
		if (r->procs[i].rank >= 0)
			v[n++] = r->procs[i].rank;
		else if (unranked)
			(*unranked)++;
	}
	qsort(v, n, sizeof(*v), by_rank);
	for (i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	*out = v;
	return (long)k;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

long wr_host_list(const struct wr_report *r, const char ***out)
{
	const char **v = malloc((r->nprocs ? r->nprocs : 1) * sizeof(*v));
	size_t i, n = 0, k = 0;

	if (!v)
		return -1;
	for (i = 0; i < r->nprocs; i++)
		if (r->procs[i].host)
			v[n++] = r->procs[i].host;
	qsort(v, n, sizeof(*v), by_name);
	for (i = 0; i < n; i++)
		if (!k || strcmp(v[k - 1], v[i]))
			v[k++] = v[i];
	*out = v;
	return (long)k;
}

void wr_ranks_free(struct wr_ranks *k)
{
	if (!k)
		return;
	free(k->ranks);
	free(k->spread);
	free(k->weight);
	free(k);
}
