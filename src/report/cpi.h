/*
 * cpi.h - witch cpi's analysis: the sampled run's time joined with the
 * counting run's executions (OptiWISE), per instruction, basic block,
 * loop, source line and function. docs/cpi.md says what each figure is.
 *
 *   cpi_load.c    the two runs' profiles: time on contexts, executions,
 *                 edges and call sites on instructions
 *   cpi_cfg.c     functions, basic blocks and their control-flow graph
 *   cpi_join.c    samples onto instructions: where a sample lands, the
 *                 instruction it stands for, and the callers it credits
 *   cpi_loops.c   natural loops, merged by OptiWISE's rule, and nested
 *   cpi_lines.c   source lines
 *   cpi_code.c    instruction bytes and disassembly, source text
 *   cpi_render.c  text and JSON
 *   cpi_procs.c   a run's processes and threads, counted alike for both
 *
 * Instructions are joined by (module, link-time offset), never by address.
 */
#ifndef WITCH_REPORT_CPI_H
#define WITCH_REPORT_CPI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/map.h"

struct wr_report;
struct wr_symbolizer;
struct wp_profile;

#define CPI_NONE UINT32_MAX
/* Fewer samples than this on a row: not significant. */
#define CPI_SIGNIFICANT 10
/* OptiWISE §IV-E: a loop sharing its header with a superset is nested in
 * it when its back edges are taken T times as often as the superset's. */
#define CPI_MERGE_T 3
/* A row whose time with callees is this share or more below calls that
 * the counting run counted nothing below has no time per instruction
 * with callees (docs/cpi.md, Limits); the same bound as the warning about
 * time on code the counting run never executed. */
#define CPI_UNCOUNTED 0.01

struct cpi_insn {
	int32_t module;		/* report module, -1 for none */
	uint64_t offset;
	uint32_t len;
	uint64_t exec;		/* executions (counting run) */
	double samples, ns;	/* the time it stands for (cpi_join.c) */
	double landed;		/* samples that landed on it */
	/* call instructions */
	uint64_t below;		/* instructions executed below it */
	double below_samples, below_ns;	/* samples and time below it */
	uint32_t func, block, line;	/* indices, CPI_NONE if none */
	const char *file;	/* its source line, NULL when unknown */
	int src_line;
	uint32_t out, nout;	/* its explicit edges: cpi.edges[out..out+nout) */
	uint32_t in, nin;	/* edges into it: cpi.in_edges[in..in+nin) */
	uint8_t call;		/* has a call edge */
};

struct cpi_edge {
	uint32_t src, dst;	/* instructions; dst CPI_NONE outside the profile */
	char kind;		/* 'j' jump, 'c' call, 'r' return, 'f' back after a call */
	uint64_t count;
};

struct cpi_func {
	int32_t module;
	uint64_t start;		/* its symbol's offset (the first instruction's when none) */
	const char *name;	/* NULL: no symbol; else as names.h names it */
	const char *linkage;	/* its symbol, when mangled; else NULL */
	uint32_t first, n;	/* its instructions: insns[first..first+n) */
	uint32_t first_block, nblocks;
	uint64_t invocations;
	uint64_t self_insns, incl_insns;	/* instructions executed, without and with callees */
	double self_samples, self_ns, incl_samples, incl_ns;
	double uncounted_ns;	/* of incl_ns, below calls with no count below (cpi_join.c) */
};

struct cpi_block {
	uint32_t func;
	uint32_t first, n;	/* instructions */
	uint64_t execs;		/* its first instruction's executions */
	uint64_t insns;		/* instructions it executed */
	double samples, ns;	/* its instructions' time (cpi_join.c), callees not */
	const char *file;	/* its first instruction's file, NULL when unknown */
	int first_line, last_line;	/* the range of its lines in that file */
	uint32_t succ, nsucc;	/* its successors in the function: cpi.succ[...] */
	uint32_t pred, npred;	/* predecessors: cpi.pred[...] */
};

/* An edge of a function's control-flow graph, between blocks. */
struct cpi_arc {
	uint32_t from, to;	/* blocks */
	uint64_t count;
};

struct cpi_loop {
	uint32_t func;
	uint32_t header;	/* block */
	uint32_t tail;		/* the instruction its most taken back edge leaves */
	uint32_t parent;	/* the loop it is nested in, CPI_NONE at top level */
	uint32_t depth;		/* 0 at top level */
	uint32_t blocks, nblocks;	/* cpi.loop_blocks[blocks..blocks+nblocks) */
	uint64_t invocations, iterations;
	uint64_t self_insns, incl_insns;
	double self_samples, self_ns, incl_samples, incl_ns;
	double uncounted_ns;	/* of incl_ns, below calls with no count below */
	const char *file;
	int first_line, last_line;
};

struct cpi_line {
	const char *file;	/* as in the debug information */
	int line;
	uint32_t func;		/* the function with most of its time */
	uint64_t execs;		/* its most executed instruction's executions (cpi_lines.c) */
	uint64_t insns;		/* instructions executed on it */
	double samples, ns;
};

/* A run's processes and threads (cpi_procs.c); zeroed to start. */
struct cpi_procs {
	struct wr_map pids;
	unsigned processes;
	uint64_t threads;
};

/* Count the process and threads of one of the run's profiles; -1 when out
 * of memory. */
int cpi_procs_add(struct cpi_procs *r, const struct wp_profile *p);
void cpi_procs_free(struct cpi_procs *r);

struct cpi {
	struct wr_report *r;	/* the sampled run's contexts; modules of both runs */
	struct wr_symbolizer *sym;

	struct cpi_insn *insns;	/* sorted by (module, offset) */
	size_t ninsns, cap_insns;
	struct wr_map insn_map;	/* (module + 1, offset) -> index */
	struct wr_map end_map;	/* calls: (module + 1, offset + len) -> index */
	struct cpi_edge *edges;	/* sorted by source */
	size_t nedges, cap_edges;
	uint32_t *in_edges;	/* edge indices sorted by target */

	struct cpi_func *funcs;
	size_t nfuncs;
	struct cpi_block *blocks;
	size_t nblocks;
	struct cpi_arc *arcs;	/* all functions' arcs */
	size_t narcs;
	uint32_t *succ, *pred;	/* arc indices by block */
	struct cpi_loop *loops;	/* by function, outer before inner */
	size_t nloops;
	uint32_t *loop_blocks;
	size_t nloop_blocks;
	struct cpi_line *lines;
	size_t nlines;

	/* the sampled run */
	double total_samples, total_ns;
	double diverged_samples, diverged_ns;	/* on code the counting run never ran */
	double unseen_samples, unseen_ns;	/* in code it cannot see: vdso, no module */
	double moved;		/* samples moved to the instruction before (cpi_join.c) */
	uint64_t rate_hz, nominal_khz;
	struct cpi_procs sampled;
	/* the counting run */
	uint64_t total_insns;
	struct cpi_procs counted;
	uint64_t inexact;

	void *code;		/* cpi_code.c's files */
};

/* An empty analysis; NULL when out of memory. */
struct cpi *cpi_new(void);
void cpi_free(struct cpi *c);

/* Does path hold witch cpi profiles (a profile of tool time or count, or
 * a directory with one)? */
int cpi_path(const char *path);

/* Read every profile in paths (files, or directories of them): both runs'
 * profiles. On error one line in err and -1. */
int cpi_load(struct cpi *c, char *const *paths, int npaths, char *err, size_t errlen);

/* After loading: functions, blocks, samples, loops and lines, symbolized
 * with sym (which warns about missing modules). -1 when out of memory. */
int cpi_analyze(struct cpi *c, struct wr_symbolizer *sym);

/* cpi_cfg.c, cpi_join.c, cpi_loops.c, cpi_lines.c: the steps of cpi_analyze. */
int cpi_functions(struct cpi *c);
int cpi_blocks(struct cpi *c);
int cpi_join(struct cpi *c);
int cpi_loops(struct cpi *c);
int cpi_lines(struct cpi *c);

/* The instruction at (module, offset), or CPI_NONE. */
uint32_t cpi_insn_at(const struct cpi *c, int32_t module, uint64_t offset);

/* cpi_loops.c: OptiWISE §IV-E over the loops sharing one header, each a
 * set of blocks (bits, in words of 64) with its back edge's count. Writes
 * for each loop the level it ends up at (0: the outermost loop, whose
 * members are merged into one; 1: the next, nested in it; ...) and
 * returns the number of levels. */
int cpi_merge_levels(const uint64_t *const *sets, const uint64_t *counts, size_t nloops,
		     size_t words, int *level);

/* cpi_code.c: the instruction's text (AT&T syntax) in buf, "" when its
 * bytes cannot be read; a source line's text, NULL when unreadable. */
void cpi_disassemble(struct cpi *c, uint32_t insn, char *buf, size_t cap);
const char *cpi_source_line(struct cpi *c, const char *file, int line);
void cpi_code_free(struct cpi *c);

/* cpi_render.c */
struct cpi_render_opts {
	size_t top;		/* rows per table, 0: all */
	const char *function;	/* --function: only this one; NULL: all */
	double ghz;		/* for estimated CPI; 0: none */
};
int cpi_render_text(FILE *out, struct cpi *c, const struct cpi_render_opts *o);
int cpi_render_json(FILE *out, struct cpi *c, const struct cpi_render_opts *o);
/* The code of function f (an index into funcs) as JSON: its source lines,
 * each with its time, and its instructions, in address order, as the
 * text report shows the top function's; ghz as in cpi_render_opts. */
int cpi_render_code_json(FILE *out, struct cpi *c, uint32_t f, double ghz);
/* The (at most max) functions whose own code took the most time, most
 * first, into top; how many. */
size_t cpi_top_functions(const struct cpi *c, uint32_t *top, size_t max);
/* The function named name (in full, in short or by its mangled symbol; of
 * several, the one with the most time), or CPI_NONE. */
uint32_t cpi_function_named(const struct cpi *c, const char *name);

#endif
