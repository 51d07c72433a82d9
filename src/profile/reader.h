/*
 * reader.h - parse one witch profile (docs/profile-format.md, version 1)
 * into memory.
 *
 * The reader is strict: anything the format does not allow is an error with
 * a one-line message that names the file, the line and what to do. It never
 * trusts a count or an index from the file, so arbitrary bytes give an error,
 * never a crash, and memory stays proportional to the file's size.
 */
#ifndef WITCH_PROFILE_READER_H
#define WITCH_PROFILE_READER_H

#include <stddef.h>
#include <stdint.h>

#define WP_FORMAT_VERSION 1

/* Larger files are refused rather than read into memory. */
#define WP_MAX_FILE_BYTES (1ULL << 30)
/* Longer lines are refused; the longest legal one is an escaped argument. */
#define WP_MAX_LINE_BYTES (1U << 20)

struct wp_module {
	char *build_id;		/* lower-case hex; NULL when the file says "-" */
	uint64_t bias;		/* runtime address - ELF virtual address */
	char *path;
};

struct wp_stat {
	char *name;
	uint64_t value;
};

struct wp_node {
	int32_t parent;		/* index of an earlier node; -1 for the root */
	int32_t module;		/* index into wp_profile.modules (not the id
				   in the file); -1 for none */
	uint64_t offset;	/* ELF vaddr in module (raw address if none) */
	uint64_t samples;	/* mu(C): samples taken in this context */
	uint64_t ns;		/* tool time: CPU nanoseconds those samples stood for */
};

/*
 * A p line, or an r line of tool rvn. Waste and use have exactly three
 * decimals in the file; they are kept as integer thousandths so that
 * merging many profiles sums them exactly.
 */
struct wp_pair {
	uint32_t watch;		/* node index (same thread) of the watched access;
				   r: the instruction that computed first */
	uint32_t trap;		/* node index of the trapping access; r: the one
				   that computed the same again */
	uint64_t waste_milli;	/* r: 0 */
	uint64_t use_milli;	/* r: 0 */
	uint64_t count;		/* traps that contributed; r: redundant executions */
	uint64_t approx_milli;	/* waste only within the float tolerance (optional field) */
	char kind;		/* r: 'c' computation, 'l' load, 's' store; p: 0 */
};

/* Tool count (witch cpi's counting run): what the program executed. A
 * module of -1 has the raw address as its offset. */
struct wp_insn {
	int32_t module;		/* index into wp_profile.modules, -1 for none */
	uint64_t offset;
	uint32_t len;		/* bytes, 1 to 15 */
	uint64_t count;		/* executions */
};

struct wp_edge {
	int32_t src_module, dst_module;
	uint64_t src, dst;	/* the source instruction and the target */
	char kind;		/* 'j' jump, 'c' call, 'r' return, 'f' back after a call */
	uint64_t count;		/* times taken (0: known but never taken) */
};

struct wp_call {
	int32_t module;
	uint64_t offset;	/* the call instruction */
	uint64_t below;		/* instructions executed below it (OptiWISE Algorithm 1) */
};

/* Tool loop: the thresholds its loops were judged by (the thresholds
 * line). R and RI are decimals kept in billionths, so that whether a loop
 * is flagged is decided exactly, also at the boundary. */
#define WP_BILLION 1000000000u
struct wp_thresholds {
	uint64_t a;		/* reads that make an iteration data-intensive, >= 1 */
	uint32_t r;		/* billionths of its reads an iteration's redundant
				   reads reach to make it redundant, 1 to WP_BILLION */
	uint32_t ri;		/* billionths of its data-intensive iterations a
				   loop's redundant ones reach to flag it */
};

/* Tool loop: a loop line, one natural loop of the loop map. */
struct wp_loop {
	uint32_t id;		/* as in the loop map; wp_profile.loops is sorted by it */
	int32_t module;		/* index into wp_profile.modules */
	uint64_t header;	/* offset of its header block's first instruction */
	int32_t parent;		/* index into wp_profile.loops of the loop it is
				   nested in; -1 at top level */
	uint32_t depth;		/* 0 at top level, parent's + 1 */
	uint32_t first_line, last_line;	/* 0 when unknown */
	char *file;		/* its source file; NULL when unknown */
	size_t lineno;		/* its line in the profile, for messages */
};

/* Tool loop: an l line, one loop in one calling context. */
struct wp_loop_rec {
	uint32_t loop;		/* index into wp_profile.loops */
	uint32_t node;		/* context whose leaf is the loop's header */
	uint64_t invocations, iterations;
	uint64_t data_iterations;	/* with at least A reads */
	uint64_t redundant_iterations;	/* data-intensive, with at least R of
					   their reads redundant */
	uint64_t reads, redundant_reads;
};

/* Tool loop: an x line, one load's redundant reads attributed to a loop. */
struct wp_loop_read {
	uint32_t loop;		/* index into wp_profile.loops */
	uint32_t node;		/* the loop's context, as in an l line */
	uint32_t load;		/* the load's context (its leaf: the load) */
	uint64_t redundant_reads;
};

/* Tool share: an s line, a store and another thread's access to one
 * cache line (docs/profile-format.md). */
struct wp_share {
	uint32_t watch;		/* node index of the sampled store */
	uint32_t trap;		/* node index of the other thread's access */
	char kind;		/* 'f' false sharing, 't' true sharing */
	uint64_t count;		/* traps, at least 1 */
	uint64_t weight_milli;	/* what they stand for, in thousandths */
	int32_t module;		/* index into wp_profile.modules, -1 for none */
	uint64_t line;		/* the line: ELF vaddr in module, else its address */
	uint8_t woff, wlen;	/* the store's bytes in the line */
	uint8_t toff, tlen;	/* the access's */
	uint64_t block;		/* the heap block holding the store; 0: none known */
	uint64_t block_size;
	uint32_t site;		/* node index of the call that allocated it; 0: none */
};

struct wp_thread {
	uint64_t tid;
	uint32_t nnodes, npairs;
	struct wp_node *nodes;	/* node i has id i */
	struct wp_pair *pairs;	/* NULL when npairs is 0 */
	uint32_t nloop_recs, nloop_reads;	/* tool loop: l and x lines */
	struct wp_loop_rec *loop_recs;
	struct wp_loop_read *loop_reads;
	uint32_t nshares;	/* tool share: s lines */
	struct wp_share *shares;
};

struct wp_profile {
	char *path;		/* as passed to wp_read() / wp_parse() */
	int version;
	const char *tool;	/* "dead", "silent", "load", "deadspy", ... */
	const char *source;	/* "timer", "pmu", "exhaustive" */
	const char *by;		/* tool rvn: "symbol" or "value"; NULL otherwise */
	uint64_t rate_hz;
	uint64_t period;
	uint64_t registers;
	uint64_t spread;	/* a timer sample: one of the next `spread` accesses (1 if absent) */
	uint64_t reach;		/* a timer sample: its access at most `reach` instructions
				   on (0: no limit; absent: 0) */
	uint64_t pid;
	char *host;		/* NULL when the profile does not say */
	int64_t rank;		/* a launcher's rank; -1: none (core/job.h) */
	uint64_t world_size;	/* with a rank: ranks in its job; 0: unknown */
	uint64_t start_ns, end_ns;
	int incomplete;		/* status incomplete: written on a crash path */

	char **args;
	size_t nargs;
	struct wp_module *modules;
	size_t nmodules;
	struct wp_stat *stats;	/* in file order; names are unique */
	size_t nstats;
	struct wp_thread *threads;
	size_t nthreads;
	struct wp_insn *insns;	/* tool count */
	size_t ninsns;
	struct wp_edge *edges;
	size_t nedges;
	struct wp_call *calls;
	size_t ncalls;
	int has_thresholds;	/* tool loop, which always has them */
	struct wp_thresholds thresholds;
	struct wp_loop *loops;	/* tool loop, sorted by id */
	size_t nloops;
};

/*
 * Read and validate the profile at path. On success stores a profile that
 * the caller releases with wp_free() and returns 0. On failure returns -1
 * and writes a one-line message (no trailing newline) into err, e.g.
 * "out/app-12.witch is truncated (no end line): ...; re-run the witch command that wrote it".
 */
int wp_read(const char *path, struct wp_profile **out, char *err, size_t errlen);

/* The same for a profile already in memory; name is used in messages. */
int wp_parse(const char *name, const char *buf, size_t len,
	     struct wp_profile **out, char *err, size_t errlen);

void wp_free(struct wp_profile *p);

/* Tool rvn's stats, which its profiles all have: for each kind of
 * instruction (computation, load, store, the kinds of r lines 'c', 'l',
 * 's'), the instructions counted and the redundant ones among them. */
#define WP_RVN_KINDS 3
extern const char *const wp_rvn_stats[WP_RVN_KINDS][2];
extern const char wp_rvn_kinds[WP_RVN_KINDS];

/* Tool loop's stats, which its profiles all have. */
#define WP_LOOP_STATS 5
extern const char *const wp_loop_stats[WP_LOOP_STATS];

/* Value of the stat called name, or 0 when the profile has none. */
uint64_t wp_stat_value(const struct wp_profile *p, const char *name);

#endif
