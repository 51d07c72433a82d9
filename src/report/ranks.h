/*
 * ranks.h - the processes of a launcher's jobs (docs/mpi.md): the ranks
 * and hosts the merged profiles came from and, for --by-rank, how each
 * top pair's weight spreads over the ranks, so that a rank that wastes
 * more than the others stands out.
 */
#ifndef WITCH_REPORT_RANKS_H
#define WITCH_REPORT_RANKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct wr_report;

/* One pair over the ranks: weights as wr_weight() gives them. */
struct wr_rank_spread {
	uint64_t min, max;
	double median;
	int64_t min_rank, max_rank;	/* the lowest rank at each */
	size_t at_min, at_max;		/* ranks at each */
};

struct wr_ranks {
	int64_t *ranks;		/* the processes' ranks, distinct, ascending */
	size_t nranks;
	size_t npairs;		/* the first npairs ranked pairs are spread */
	struct wr_rank_spread *spread;	/* per ranked pair */
	uint64_t *weight;	/* [pair * nranks + rank index] */
};

/* The distinct ranks of r's processes, ascending, into *out (free it):
 * how many, or -1 when out of memory. *unranked counts the processes
 * without one (may be NULL). */
long wr_rank_list(const struct wr_report *r, int64_t **out, size_t *unranked);

/* The distinct hosts of r's processes, sorted, into *out (free the
 * array, not the strings: r's): how many, or -1 when out of memory. */
long wr_host_list(const struct wr_report *r, const char ***out);

/*
 * --by-rank: read the merged processes' profiles again and sum each of
 * the first top ranked pairs' weight (0: all) per rank, into r->ranks.
 * Memory: top pairs times ranks. -1 with a message in err when a merged
 * process has no rank, a profile cannot be read again or memory runs out.
 */
int wr_by_rank(struct wr_report *r, size_t top, char *err, size_t errlen);

void wr_ranks_free(struct wr_ranks *k);

/* Text: the "ranks:" line and its notes (ranks of a job that left no
 * profile, jobs of different sizes merged), nothing without ranks; a
 * ranked pair's "by rank" line, nothing without --by-rank. */
void wr_text_ranks(FILE *out, const struct wr_report *r);
void wr_text_pair_ranks(FILE *out, const struct wr_report *r, size_t ranked);

/* JSON: "ranks":[...],"hosts":[...] (no leading comma; null when out
 * of memory); "by_rank":[...] per ranked pair shown (no leading comma). */
void wr_json_ranks(FILE *out, const struct wr_report *r);
void wr_json_by_rank(FILE *out, const struct wr_report *r);

#endif
