/*
 * report.h - profiles merged across threads and processes.
 *
 * A calling context is identified by its frames, (module path, build-id,
 * offset), from the root down to the leaf; contexts with the same frames
 * are one context whatever thread or process they came from. They are kept
 * as a trie (struct wr_ctx), each node naming its parent, which makes
 * interning a profile's calling-context tree linear in its size.
 */
#ifndef WITCH_REPORT_REPORT_H
#define WITCH_REPORT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "profile/reader.h"
#include "report/map.h"
#include "report/tools.h"

struct wr_loops;
struct wr_shares;
struct wr_ranks;

#define WR_ROOT 0		/* the context with no frames */
#define WR_NONE UINT32_MAX

struct wr_module {
	char *path;
	char *build_id;		/* lower-case hex, NULL when none recorded */
};

struct wr_ctx {
	uint32_t parent;	/* WR_NONE for WR_ROOT */
	int32_t module;		/* index into modules, -1 when none */
	uint64_t offset;	/* ELF vaddr in module, raw address otherwise */
	uint64_t samples;	/* mu(C) summed */
	uint64_t ns;		/* tool time: CPU time its samples stood for, summed */
};

/* Tool rvn's pairs are these too: watch is the context that computed
 * first, trap the one that computed the same again, count how often. */
struct wr_pair {
	uint32_t watch, trap;	/* contexts */
	uint64_t waste_milli;	/* thousandths of a (sample-weighted) byte */
	uint64_t use_milli;
	uint64_t count;		/* traps; rvn: redundant executions */
	uint64_t approx_milli;	/* approximate (floating-point) waste, not in waste_milli */
	char kind;		/* rvn: 'c' computation, 'l' load, 's' store; else 0 */
};

struct wr_stat {
	char *name;
	uint64_t value;
};

struct wr_process {
	uint64_t pid;
	char *file;		/* the profile it came from */
	char **args;
	size_t nargs;
	uint64_t *tids;		/* distinct, sorted by wr_report_finish() */
	size_t ntids;
	int incomplete;
	char *host;		/* NULL when the profile does not say */
	int64_t rank;		/* a launcher's rank, -1: none (ranks.h) */
	uint64_t world_size;	/* its job's ranks, 0: unknown */
};

struct wr_report {
	const struct wr_tool *tool;	/* NULL until the first profile */
	const char *source;
	const char *by;		/* tool rvn: "symbol" or "value"; NULL otherwise */
	uint64_t rate_hz, period;
	uint64_t spread;	/* timer: a sample stands for one of the next `spread` accesses */
	uint64_t reach;		/* timer: found at most `reach` instructions on (0: no limit) */
	int mixed_rates;	/* processes sampled at different rates */
	struct wp_thresholds thresholds;	/* tool loop: its profiles' (they agree) */
	struct wr_loops *loops;	/* tool loop: its loops and rows (loop.h); NULL otherwise */
	struct wr_shares *shares;	/* tool share: its pairs' cache lines (share.h); NULL otherwise */

	struct wr_process *procs;
	size_t nprocs;
	struct wr_module *mods;
	size_t nmods;
	struct wr_ctx *ctxs;
	size_t nctxs;
	struct wr_pair *pairs;
	size_t npairs;
	struct wr_stat *stats;	/* summed by name, in order of appearance */
	size_t nstats;

	/* Set before wr_load(): merge only this process (0: all), only the
	 * processes of this rank (-1, as wr_report_new() leaves it: all). */
	uint64_t only_pid;
	int64_t only_rank;
	size_t nloaded;		/* profiles merged */
	struct wr_ranks *ranks;	/* --by-rank: the ranked pairs' spread (ranks.h); NULL: none */

	/* Set by wr_report_finish(). */
	uint64_t waste_milli, use_milli, approx_milli;
	uint64_t redundant;	/* tools that count executions: the pairs' counts summed */
	size_t nthreads;
	uint32_t *ranked;	/* all pairs: most waste (or redundant executions) first,
				   then most use */
	size_t nranked;
	size_t nwaste;		/* the first nwaste ranked pairs are findings: they have
				   waste (or, counting executions, any count) */

	/* Interning. */
	size_t cap_procs, cap_mods, cap_ctxs, cap_pairs, cap_stats;
	struct wr_map mod_map, ctx_map, pair_map, stat_map;
};

/* An empty report with only the root context, or NULL. */
struct wr_report *wr_report_new(void);
void wr_report_free(struct wr_report *r);

/*
 * Merge one profile. Fails, with a message in err, when the profile cannot
 * be merged with those before it (another tool or sample source) or
 * memory runs out.
 */
int wr_merge(struct wr_report *r, const struct wp_profile *p,
	     char *err, size_t errlen);

/* Add a profile's pair (kind and metrics from wp) to the report's pair of
 * contexts watch and trap, made if new: its index in *idx. -1 when out of
 * memory. */
int wr_add_pair(struct wr_report *r, uint32_t watch, uint32_t trap, const struct wp_pair *wp,
		uint32_t *idx);

/* The report's index of the module (path, build_id), added if new; -1
 * when out of memory. */
int32_t wr_intern_module(struct wr_report *r, const char *path, const char *build_id);

/* After the last wr_merge(): totals, thread counts and the ranking. */
int wr_report_finish(struct wr_report *r);

/* Summed value of a stat; *present says whether any profile had it. */
uint64_t wr_stat(const struct wr_report *r, const char *name, int *present);

/* waste / (waste + use), WITCH Eq. 1; 0 when nothing was observed.
 * Approximate waste counts in `use` for the exact figure. */
double wr_redundancy(uint64_t waste_milli, uint64_t use_milli);

/* A pair's or the totals' weight for ranking: exact plus approximate waste. */
uint64_t wr_all_waste(uint64_t waste_milli, uint64_t approx_milli);

/* What a pair weighs in the ranking: its exact and approximate waste, or,
 * for a tool that counts executions, its count. */
uint64_t wr_weight(const struct wr_report *r, const struct wr_pair *pr);

/* All the pairs' weight: the totals' exact and approximate waste, or
 * their redundant executions. */
uint64_t wr_total_weight(const struct wr_report *r);

/* The pair's share of all the pairs' weight, 0..1. */
double wr_share(const struct wr_report *r, const struct wr_pair *pr);

/* part / whole, 0 when whole is 0. */
double wr_ratio(uint64_t part, uint64_t whole);

/* Tool rvn: the instructions of one kind and how many were redundant. */
struct wr_kind_total {
	const char *kind;	/* "computation", "load", "store"; "all" for the sum */
	uint64_t all, redundant;
};

#define WR_KINDS WP_RVN_KINDS	/* computation, load, store */

/* Tool rvn's totals from its stats: the three kinds in that order, then
 * all kinds together. */
void wr_kind_totals(const struct wr_report *r, struct wr_kind_total t[WR_KINDS + 1]);

/* An r line's kind letter as a word: "computation", "load", "store". */
const char *wr_kind_name(char kind);

/*
 * Read every path (a profile, or a directory whose *.witch files are read)
 * and merge them into r. On error writes one line into err and returns -1.
 */
int wr_load(struct wr_report *r, char *const *paths, int npaths,
	    char *err, size_t errlen);

/* The same reading, each profile handed to fn instead (its return
 * value, non-zero with a message in err, stops the reading). */
typedef int wr_profile_fn(void *ctx, const struct wp_profile *p, char *err, size_t errlen);
int wr_load_each(char *const *paths, int npaths, wr_profile_fn *fn, void *ctx,
		 char *err, size_t errlen);

/* Whether r merges p: its only_pid and only_rank select it. */
int wr_selected(const struct wr_report *r, const struct wp_profile *p);

/* Without adding anything: the report's module (path, build_id), or -1;
 * the context (parent, module, offset) in *out, 0, or -1 when it has
 * none; the pair of the two contexts (and rvn kind), or WR_NONE. */
int32_t wr_find_module(const struct wr_report *r, const char *path, const char *build_id);
int wr_find_ctx(const struct wr_report *r, uint32_t parent, int32_t module, uint64_t offset,
		uint32_t *out);
uint32_t wr_find_pair(const struct wr_report *r, uint32_t watch, uint32_t trap, char kind);

#endif
