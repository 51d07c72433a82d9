/*
 * loop.h - witch spy --tool=loop (--witch-tool=loop): loops whose
 * iterations re-read the (address, value) pairs earlier iterations read
 * (Prometheus, in software; docs/spy.md says what counts).
 *
 * The loops come from the binary: `witch spy` first runs the program
 * under the count tool and finds natural loops in its control-flow graph
 * with witch cpi's analysis, then hands them to this run as a map
 * (--witch-loops=FILE, docs/spy.md). Here:
 *
 *   loop_map.c   the map: modules, functions with loops, loops and their
 *                blocks; where a translation needs a point
 *   loop_run.c   the helpers: a loop point (an invocation or iteration
 *                begins, or control left a loop), a read, the per-thread
 *                activations
 *   loop_reads.c a thread's read set, by address
 *   loop_out.c   the profile's loop lines and records
 */
#ifndef WITCHSPY_LOOP_H
#define WITCHSPY_LOOP_H

#include "pub_tool_basics.h"

#include "spy.h"

struct SpyThread;
struct core_profile;

/* A loop of the map. */
typedef struct LoopDesc {
	UInt id;		/* in the map and the profile */
	Addr header;		/* offset of its header's first instruction */
	struct LoopDesc *parent;	/* the loop it is nested in, NULL at top */
	UInt depth;
	Int first_line, last_line;
	const HChar *file;	/* "-" when unknown */
} LoopDesc;

/* A place where a translation calls loop_point: a loop's header, or
 * where control leaves a loop. One per address, whatever translations
 * hold it. */
typedef struct LoopPoint {
	Addr pc;
	LoopDesc *inner;	/* the innermost loop holding it, NULL: none */
	LoopDesc *head;		/* the loop it heads, NULL: none */
	struct SpyThread *cached;	/* the thread, parent node and record */
	UInt cached_parent, cached_rec;	/* ... of head's last invocation, */
	UInt cached_below, cached_stack;	/* and its stack (loop_stacks.c), */
	UInt cached_gen;		/* while loop_threads_gen was this */
} LoopPoint;

/* ---- loop_map.c ---- */

/* Maps go into dir, written by running witch (`witch loops`); a bad map:
 * a message and exit. */
void loop_map_init(const HChar *dir, const HChar *witch);
/* How many modules' loops could not be found. */
UInt loop_map_unmapped(void);
/* The point for the instruction at pc, or NULL when it needs none. */
LoopPoint *loop_map_point(Addr pc);
/* All loops, for the profile: the count and each by id. */
UInt loop_map_count(void);
LoopDesc *loop_map_loop(UInt id);

/* ---- loop_stacks.c ---- */

/* A stack of activations: the node of its innermost one's loop, and the
 * stack below it (0: none). Made once each, at most loop_stacks_max
 * (--witch-loop-stacks); past that, and on such a stack, LOOP_STACK_NONE:
 * the reads counted for it go to no load (the stat reads_unattributed). */
typedef struct {
	UInt below, node;
} LoopStack;

#define LOOP_STACK_NONE 0xffffffffu

extern LoopStack *loop_stacks;
extern UInt loop_stacks_max;

UInt loop_stack_push(UInt below, UInt node);

static inline UInt loop_stack_node(UInt stack)
{
	return loop_stacks[stack].node;
}

static inline UInt loop_stack_below(UInt stack)
{
	return loop_stacks[stack].below;
}

/* ---- loop_run.c ---- */

/* Thresholds (--witch-thresholds=A,R,RI): reads that make an iteration
 * data-intensive, the share of redundant reads that makes it redundant,
 * and the share of redundant iterations that flags a loop (the report's). */
extern UInt loop_a;
extern double loop_r, loop_ri;
/* --witch-exact-parts: split words (judge_split), where a word's parts
 * were read at different times, and loops began between. */
extern Bool loop_exact_parts;
/* The running thread's active loops: the reads' guard. */
extern UInt loop_active;

VG_REGPARM(2) void loop_point(LoopPoint *p, Addr sp);
VG_REGPARM(3) void loop_read(Addr a, UWord size, SpySite *site, ULong v);
void loop_read16(Addr a, SpySite *site, ULong v0, ULong v1);
void loop_read32(Addr a, SpySite *site, ULong v0, ULong v1, ULong v2, ULong v3);
void loop_read_mem(Addr a, UWord size, SpySite *site);

/* Thread events (callstack.c, spy_main.c). */
void loop_switch(struct SpyThread *t);
/* Frames went, or a signal handler was left: the loops they ran end. */
void loop_frames_popped(struct SpyThread *t);
/* The thread is gone: its loops end, its read set goes, its records stay. */
void loop_thread_exit(struct SpyThread *t);
/* Its records go too (after fork): points cached for it are stale. */
void loop_thread_free(struct SpyThread *t);
extern UInt loop_threads_gen;
void loop_after_fork(void);
/* The bytes of every live thread's read set. */
ULong loop_shadow_bytes(void);
/* Every thread's open invocations end (the profile is written). */
void loop_finish(void);

/* Per-thread records, for loop_out.c. */
typedef struct {
	LoopDesc *loop;
	UInt node;		/* CCT node: the header in its calling context */
	ULong invocations, iterations, data_iterations, redundant_iterations;
	ULong reads, redundant_reads;
	Bool flagged;		/* so far: it claims its redundant reads (loop_run.c) */
} LoopRec;

UInt loop_thread_records(const struct SpyThread *t, const LoopRec **recs);
/* The thread's record of the loop in context node, NULL if none. */
const LoopRec *loop_thread_rec(const struct SpyThread *t, UInt node);

typedef struct {
	ULong reads, reads_in_loops, reads_untracked, loops_untracked;
	ULong redundant_reads;	/* redundant for at least one active loop */
	ULong reads_unattributed;	/* of those, counted for no load (LOOP_STACK_NONE) */
} LoopStats;
extern LoopStats loop_st;

/* ---- loop_out.c ---- */

/* Nodes the thread's records name, through fn (the profile's collect). */
void loop_thread_nodes(const struct SpyThread *t, void (*fn)(void *ctx, UInt node), void *ctx);
void loop_write_header(struct core_profile *o);
void loop_write_stats(struct core_profile *o);
/* The loops the threads ran (after the modules, whose ids are set). */
void loop_write_defs(struct core_profile *o);
UInt loop_thread_lines(const struct SpyThread *t);
void loop_write_thread(struct core_profile *o, const struct SpyThread *t, const UInt *local);

#endif
