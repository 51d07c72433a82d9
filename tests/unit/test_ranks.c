/*
 * test_ranks.c - the ranks of a parallel job in the report
 * (src/report/ranks.c, by_rank.c): which ranks and hosts were merged,
 * --rank's selection, and --by-rank's spread of each pair over the ranks,
 * from profiles written into a temporary directory.
 */
#include "tap.h"
#include "report/ranks.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/witch-ranks-XXXXXX";

/* A profile of one process of rank (-1: none) on host, whose pair
 * (clear -> fill) wasted `waste` bytes and whose other pair (the same in
 * every rank) 5. */
static void put(int pid, int rank, const char *host, unsigned waste)
{
	char path[256], job[128] = "";
	FILE *f;

	if (rank >= 0)
		snprintf(job, sizeof(job), "host %s\nrank %d\nworld_size 6\n", host, rank);
	snprintf(path, sizeof(path), "%s/app-%d.witch", dir, pid);
	f = fopen(path, "w");
	fprintf(f, "WITCH-PROFILE 1\ntool dead\nsource timer\nrate_hz 200\nperiod 0\n"
		   "registers 4\npid %d\n%sstart_ns 1\nend_ns 2\nstatus complete\n"
		   "arg 0 ./app\nmodule 0 - 0 /nonexistent/app\nstat samples 10\n"
		   "thread %d 4 2\nn 0 -1 -1 0 0\nn 1 0 0 1000 0\nn 2 1 0 1010 5\nn 3 1 0 1020 5\n"
		   "p 2 3 %u.000 0.000 1\np 3 3 5.000 1.000 1\nend %d\n",
		pid, job, pid, waste, rank >= 0 ? 23 : 20);
	fclose(f);
}

static struct wr_report *load(int64_t only_rank)
{
	struct wr_report *r = wr_report_new();
	char *paths[] = { dir }, err[512];

	r->only_rank = only_rank;
	if (wr_load(r, paths, 1, err, sizeof(err)) || wr_report_finish(r)) {
		tap_diag("load: %s", err);
		wr_report_free(r);
		return NULL;
	}
	return r;
}

int main(void)
{
	struct wr_report *r;
	int64_t *ranks = NULL;
	const char **hosts = NULL;
	char err[512];
	size_t unranked;
	long n;

	if (!mkdtemp(dir))
		return 1;
	/* Rank 1 as two processes (a fork child): 12 + 8. Rank 4 left none. */
	put(100, 0, "a", 10);
	put(101, 1, "a", 12);
	put(102, 1, "a", 8);
	put(103, 2, "b", 20);
	put(104, 3, "b", 50);
	put(105, 5, "b", 10);

	r = load(-1);
	n = r ? wr_rank_list(r, &ranks, &unranked) : -1;
	tap_ok(n == 5 && ranks[0] == 0 && ranks[4] == 5 && unranked == 0,
	       "the distinct ranks, ascending");
	n = r ? wr_host_list(r, &hosts) : -1;
	tap_ok(n == 2 && !strcmp(hosts[0], "a") && !strcmp(hosts[1], "b"), "the distinct hosts");
	tap_ok(r && wr_by_rank(r, 0, err, sizeof(err)) == 0 && r->ranks &&
	       r->ranks->npairs == 2 && r->ranks->nranks == 5, "--by-rank spreads every pair");
	if (r && r->ranks && r->ranks->npairs == 2) {
		const struct wr_rank_spread *s = &r->ranks->spread[0], *t = &r->ranks->spread[1];

		tap_ok(r->ranks->weight[1] == 20000, "a rank's processes are summed (rank 1: 12 + 8)");
		tap_ok(s->min == 10000 && s->min_rank == 0 && s->at_min == 2,
		       "min, its lowest rank, and how many ranks are at it");
		tap_ok(s->max == 50000 && s->max_rank == 3 && s->at_max == 1, "max and its rank");
		tap_ok(s->median == 20000, "median of 10, 10, 20, 20, 50");
		tap_ok(t->min == 5000 && t->at_min == 4 && t->max == 10000 && t->max_rank == 1 &&
		       t->median == 5000, "the other pair: 5 in each process, so 10 in rank 1");
	}
	free(ranks);
	free(hosts);
	wr_report_free(r);

	r = load(1);
	tap_ok(r && r->nprocs == 2 && r->waste_milli == 30000, "--rank=1: its two processes alone");
	wr_report_free(r);

	/* Even count of ranks: the median is the middle two's mean. */
	put(106, 4, "b", 15);
	r = load(-1);
	tap_ok(r && wr_by_rank(r, 1, err, sizeof(err)) == 0 && r->ranks->npairs == 1 &&
	       r->ranks->spread[0].median == 17500, "median of six ranks: the middle two's mean");
	wr_report_free(r);

	put(107, -1, NULL, 1);
	r = load(-1);
	tap_ok(r && wr_by_rank(r, 0, err, sizeof(err)) == -1 &&
	       strstr(err, "1 of the 8 processes have no rank"), "a process without a rank: refused");
	wr_report_free(r);

	for (n = 100; n <= 107; n++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/app-%ld.witch", dir, n);
		unlink(path);
	}
	rmdir(dir);
	return tap_done();
}
