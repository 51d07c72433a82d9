/*
 * ranks_render.c - the ranks in the text and JSON reports (ranks.h).
 */
#include "report/ranks.h"
#include "report/render.h"
#include "report/report.h"

#include <stdlib.h>

#define MAX_HOSTS 4	/* hosts named in the text's ranks line */

/* Weights as the report shows pairs: sample-weighted (or exact) bytes
 * with one decimal, or whole executions. */
static void text_weight(FILE *out, const struct wr_report *r, double w)
{
	if (r->tool->counts_executions)
		fprintf(out, "%.0f", w);
	else
		fprintf(out, "%.1f", w / 1000);
}

static void json_weight(FILE *out, const struct wr_report *r, double w)
{
	wr_json_number(out, r->tool->counts_executions ? "%.1f" : "%.3f",
		       r->tool->counts_executions ? w : w / 1000);
}

/* The world sizes the processes say: the first and one that differs. */
static void world_sizes(const struct wr_report *r, uint64_t *a, uint64_t *b)
{
	size_t i;

	*a = *b = 0;
	for (i = 0; i < r->nprocs; i++) {
		uint64_t w = r->procs[i].world_size;

		if (w && !*a)
			*a = w;
		else if (w && w != *a && !*b)
			*b = w;
	}
}

/* How many of ranks 0..world-1 have no profile, and the first of them. */
static uint64_t absent(const int64_t *ranks, long n, uint64_t world, int64_t *first)
{
	uint64_t present = 0;
	long i;

	*first = -1;
	for (i = 0; i < n; i++) {
		if (*first < 0 && ranks[i] != i)
			*first = i;
		present += (uint64_t)ranks[i] < world;
	}
	if (*first < 0)
		*first = n;
	return world > present ? world - present : 0;
}

void wr_text_ranks(FILE *out, const struct wr_report *r)
{
	int64_t *ranks = NULL, first;
	const char **hosts = NULL;
	long n = wr_rank_list(r, &ranks, NULL), nh = wr_host_list(r, &hosts), i;
	uint64_t world, other, gone;

	if (n > 0 && nh >= 0) {
		world_sizes(r, &world, &other);
		if (n == 1)
			fprintf(out, "ranks: 1 (rank %lld)", (long long)ranks[0]);
		else
			fprintf(out, "ranks: %ld (%lld to %lld)", n, (long long)ranks[0],
				(long long)ranks[n - 1]);
		if (world && !other)
			fprintf(out, " of a job of %llu", (unsigned long long)world);
		if (nh)
			fprintf(out, ", on %ld host%s", nh, nh == 1 ? "" : "s");
		for (i = 0; i < nh && i < MAX_HOSTS; i++) {
			fputs(i ? ", " : " (", out);
			wr_text_printable(out, hosts[i]);
		}
		if (nh > MAX_HOSTS)
			fprintf(out, " and %ld more", nh - MAX_HOSTS);
		fputs(nh ? ")\n" : "\n", out);
		/* Not when --rank or --pid left the others out. */
		if (world && !other && r->only_rank < 0 && !r->only_pid &&
		    (gone = absent(ranks, n, world, &first)))
			fprintf(out, "note: %llu of the job's %llu ranks left no profile here "
				"(the first: rank %lld)\n", (unsigned long long)gone,
				(unsigned long long)world, (long long)first);
		if (other)
			fprintf(out, "note: the profiles come from jobs of different sizes (%llu and "
				"%llu ranks): an earlier job's in the same directory? give each job "
				"its own directory\n", (unsigned long long)world,
				(unsigned long long)other);
	}
	free(ranks);
	free(hosts);
}

/* " min W (rank R and N more)": one end of the spread. */
static void text_end(FILE *out, const struct wr_report *r, const char *end, uint64_t w,
		     int64_t rank, size_t at)
{
	fprintf(out, "%s ", end);
	text_weight(out, r, (double)w);
	fprintf(out, " (rank %lld", (long long)rank);
	if (at > 1)
		fprintf(out, " and %zu more", at - 1);
	fputc(')', out);
}

void wr_text_pair_ranks(FILE *out, const struct wr_report *r, size_t ranked)
{
	const struct wr_ranks *k = r->ranks;
	const struct wr_rank_spread *s;

	if (!k || ranked >= k->npairs)
		return;
	s = &k->spread[ranked];
	fprintf(out, "  by rank (%zu rank%s): ", k->nranks, k->nranks == 1 ? "" : "s");
	if (s->min == s->max) {
		fputs("the same in every rank, ", out);
		text_weight(out, r, (double)s->min);
		fputc('\n', out);
		return;
	}
	text_end(out, r, "min", s->min, s->min_rank, s->at_min);
	fputs(", median ", out);
	text_weight(out, r, s->median);
	fputs(", ", out);
	text_end(out, r, "max", s->max, s->max_rank, s->at_max);
	if (s->median > 0)
		fprintf(out, ": %.1fx the median", (double)s->max / s->median);
	fputc('\n', out);
}

void wr_json_ranks(FILE *out, const struct wr_report *r)
{
	int64_t *ranks = NULL;
	const char **hosts = NULL;
	long n = wr_rank_list(r, &ranks, NULL), nh = wr_host_list(r, &hosts), i;

	if (n < 0 || nh < 0) {
		/* Out of memory: unknown, not empty. */
		fputs("\"ranks\":null,\"hosts\":null", out);
		free(ranks);
		free(hosts);
		return;
	}
	wr_json_string(out, "ranks");
	fputs(":[", out);
	for (i = 0; i < n; i++)
		fprintf(out, "%s%lld", i ? "," : "", (long long)ranks[i]);
	fputs("],", out);
	wr_json_string(out, "hosts");
	fputs(":[", out);
	for (i = 0; i < nh; i++) {
		if (i)
			fputc(',', out);
		wr_json_string(out, hosts[i]);
	}
	fputc(']', out);
	free(ranks);
	free(hosts);
}

/* "min":W,"min_rank":R,"ranks_at_min":N: one end of the spread. */
static void json_end(FILE *out, const struct wr_report *r, const char *end, uint64_t w,
		     int64_t rank, size_t at, int *first)
{
	char key[32];

	wr_json_key(out, end, first);
	json_weight(out, r, (double)w);
	snprintf(key, sizeof(key), "%s_rank", end);
	wr_json_key(out, key, first);
	fprintf(out, "%lld", (long long)rank);
	snprintf(key, sizeof(key), "ranks_at_%s", end);
	wr_json_key(out, key, first);
	fprintf(out, "%zu", at);
}

void wr_json_by_rank(FILE *out, const struct wr_report *r)
{
	const struct wr_ranks *k = r->ranks;
	size_t i, j;

	wr_json_string(out, "by_rank");
	fputs(":[", out);
	for (i = 0; k && i < k->npairs; i++) {
		const struct wr_rank_spread *s = &k->spread[i];
		int first = 1;

		fputs(i ? ",{" : "{", out);
		wr_json_key(out, "pair", &first);
		fprintf(out, "%zu", i + 1);
		wr_json_key(out, "unit", &first);
		wr_json_string(out, r->tool->counts_executions ? "executions" : "bytes");
		json_end(out, r, "min", s->min, s->min_rank, s->at_min, &first);
		wr_json_key(out, "median", &first);
		json_weight(out, r, s->median);
		json_end(out, r, "max", s->max, s->max_rank, s->at_max, &first);
		/* In the order of the report's "ranks". */
		wr_json_key(out, "per_rank", &first);
		fputc('[', out);
		for (j = 0; j < k->nranks; j++) {
			if (j)
				fputc(',', out);
			json_weight(out, r, (double)k->weight[i * k->nranks + j]);
		}
		fputs("]}", out);
	}
	fputc(']', out);
}
