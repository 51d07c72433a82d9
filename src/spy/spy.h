/*
 * spy.h - witchspy, the exhaustive Valgrind tool: what its parts share.
 *
 * Only VG_(...) APIs: a Valgrind tool is linked without libc.
 *
 *   spy_main.c   registration, options, the core's memory events, fini
 *   instrument.c VEX instrumentation: which helper runs before which access
 *   analysis.c   the helpers: DeadSpy, RedSpy and LoadSpy per byte
 *   shadow.c     per-byte context handles, a lazily filled two-level table
 *   callstack.c  per-thread shadow call stacks (call/ret checked against SP)
 *   cct.c        the calling context tree, context pairs and the sites' memos
 *                of them, modules
 *   heap.c       glibc free/realloc: freed blocks forget their history
 *   profile.c    the profile file (docs/profile-format.md)
 *   rvn.c, rvn_run.c
 *                --witch-tool=rvn: redundant computation by value
 *                numbering (rvn.h)
 *   count.c, count_calls.c, count_out.c
 *                witch cpi's counting run (--witch-tool=count): every
 *                instruction's executions, edges and calls, and its
 *                profile's records
 *   addrmap.c    one object per guest address (sites, call sites, points)
 *   loop_map.c, loop_run.c, loop_out.c
 *                --witch-tool=loop: loops whose iterations re-read
 *                (loop.h)
 *   progress.c   the progress line on the terminal (--witch-progress)
 *   child.c      a program of the tool's own, run unseen by the client
 *   debug_files.c
 *                the system's detached debug files, left unread
 */
#ifndef WITCHSPY_H
#define WITCHSPY_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

enum spy_tool { SPY_DEAD, SPY_SILENT, SPY_LOAD, SPY_COUNT, SPY_RVN, SPY_LOOP };

/* What an access holds, for approximate comparison of floating point. */
enum spy_dtype { DT_INT = 0, DT_F32, DT_F64 };

struct spy_config {
	int tool;		/* enum spy_tool */
	double approx;		/* relative tolerance; 0 compares exactly */
	const HChar *outdir;
	Bool stack_clear;	/* frames popped off the stack forget their history */
	Bool heap_clear;	/* glibc free()d blocks forget their history */
	Bool follow;		/* forked children write profiles too */
	Bool silent;		/* this process writes none (a child, not followed) */
	Bool trim;		/* give back the core's memory no one reads (trim.c) */
	Bool by_value;		/* rvn: --witch-by=value */
	UInt history;		/* ... judged against the last this many results */
	ULong burst_on, burst_off;	/* rvn --witch-burst: instructions judged, then not;
					   0: all judged */
	const HChar *loops;	/* loop: --witch-loops, the maps' directory */
	const HChar *loop_finder;	/* loop: --witch-loop-finder, witch */
};
extern struct spy_config spy_cfg;

/* The core's system call: in pub_core_syscall.h, not among the tool's
 * headers, but the tool is linked with that core. */
extern SysRes VG_(do_syscall)(UWord sysno, RegWord a1, RegWord a2, RegWord a3, RegWord a4,
			      RegWord a5, RegWord a6);

/* Counters written as `stat` lines. */
struct spy_stats {
	ULong bytes_accessed;	/* stored (dead, silent) or loaded (load) */
	ULong kernel_bytes_read;	/* by system calls, judged as loads (dead) */
	ULong kernel_bytes_written;	/* by system calls, counted as stores */
	ULong frees;		/* glibc free/realloc blocks cleared */
	ULong stack_bytes_cleared;
	ULong superblocks;	/* translated */
	ULong approx_bytes;	/* silent/load: equal within the tolerance only */
	ULong handles_overflowed;	/* LoadSpy contexts beyond 2^24, merged */
};
extern struct spy_stats spy_st;

/* ---- cct.c: calling context tree, pairs, modules ---------------------- */

#define SPY_ROOT 0u

typedef struct {
	Addr pc;
	UInt parent;
	Short module;		/* index in spy_mods, -1 when in no object */
	UChar dtype;		/* enum spy_dtype of the access (leaves) */
	Bool hashed;		/* found by spy_cct_child, not only made by spy_cct_leaf */
} SpyNode;

/* Objects past this many are named by no node (SpyNode.module). */
#define SPY_MAX_MODULES 0x7fff

typedef struct {
	HChar *path;
	Addr bias;		/* runtime address - ELF virtual address */
	Addr lo, hi;		/* code range (PLT and text), to recognise it again */
	Int id;			/* in the profile, -1 until a written node uses it */
} SpyModule;

/* Nodes by id, in chunks that never move: the tree grows without a copy
 * of all of it (which for a moment doubled its memory). */
#define SPY_NODE_CHUNK_BITS 16
extern SpyNode **spy_node_chunks;
extern UInt spy_nnodes;

static inline SpyNode *spy_node(UInt id)
{
	return &spy_node_chunks[id >> SPY_NODE_CHUNK_BITS][id & ((1u << SPY_NODE_CHUNK_BITS) - 1)];
}

extern SpyModule *spy_mods;
extern Int spy_nmods;
extern ULong spy_nodes_dropped;

void spy_cct_init(void);
/* The object holding the code at pc, as an index in spy_mods, or -1. */
Int spy_module_of(Addr pc);
/* The child of parent for pc, created on first use. */
UInt spy_cct_child(UInt parent, Addr pc, UChar dtype);
/* A new child of parent for pc that spy_cct_child will not find: for a
 * caller that keeps its own index of the children it makes (rvn's
 * contexts' tables), so that the tree's table holds the others only. */
UInt spy_cct_leaf(UInt parent, Addr pc, UChar dtype);
/* The handle of a leaf node for the shadow memory: LoadSpy has 24 bits,
 * rvn 27. */
UInt spy_handle(UInt node);

typedef struct {
	UInt watch, trap;	/* node ids */
	ULong waste, use, approx;	/* bytes */
	ULong count;		/* events (waste, approx or use) */
} SpyPair;

#define SPY_PAIR_CACHE_BITS 14
#define SPY_PAIR_CACHE (1u << SPY_PAIR_CACHE_BITS)

typedef struct {
	SpyPair *v;
	UInt n, cap;
	UInt *hash;
	UInt mask;
	UInt cache[SPY_PAIR_CACHE];	/* direct-mapped: pair index + 1, 0 empty */
} SpyPairTab;

void spy_pairs_init(SpyPairTab *t);
void spy_pairs_free(SpyPairTab *t);
SpyPair *spy_pair_slow(SpyPairTab *t, UInt watch, UInt trap);

static inline UInt spy_pair_slot(UInt watch, UInt trap)
{
	UInt h = watch * 0x9E3779B1u + trap * 0x85EBCA77u;

	return (h ^ (h >> 15)) & (SPY_PAIR_CACHE - 1);
}

static inline SpyPair *spy_pair(SpyPairTab *t, UInt watch, UInt trap)
{
	UInt k = t->cache[spy_pair_slot(watch, trap)];

	if (LIKELY(k)) {
		SpyPair *p = &t->v[k - 1];

		if (LIKELY(p->watch == watch && p->trap == trap))
			return p;
	}
	return spy_pair_slow(t, watch, trap);
}

/* Add d's counts to the pair (d->watch, d->trap) of t. */
void spy_pair_add(SpyPairTab *t, const SpyPair *d);

/* ---- callstack.c: threads and their shadow stacks ---------------------- */

struct CntCall;

typedef struct {
	Addr ret;		/* return address pushed by the call */
	Addr slot;		/* where it was pushed: SP at the callee's entry */
	UInt node;		/* CCT node of the path down to this frame */
	UInt realloc_pending;	/* a glibc realloc is running in this frame */
	Addr realloc_p;		/* its old block and size */
	SizeT realloc_size, realloc_new;
	/* count (count_calls.c): NULL call for the other tools */
	struct CntCall *call;	/* the call site */
	Int *fn_top;		/* the latest frame its function made, NULL: unknown */
	ULong start;		/* the thread's instructions at the call */
	ULong hidden;		/* instructions while a deeper instance of fn ran */
	ULong hidden_since;	/* ... since when, while one runs */
	Bool hidden_now;
	Int hides;		/* the frame the callee hides, -1 if none */
	Int prev_same;		/* the frame its function made before, -1 if none */
} SpyFrame;

typedef struct {
	Addr sp;		/* interrupted SP */
	UInt base;		/* frames below the handler */
	UInt prev_base;
	Bool alt;		/* handler on an alternate stack */
} SpySigMark;

#define SPY_MAX_SIGNEST 64

typedef struct SpyThread {
	ThreadId tid;
	Int lwpid;
	SpyFrame *f;
	UInt depth, cap;
	UInt sigbase;		/* frames at or below this index belong to code a
				   signal interrupted: SP checks stop there */
	UInt nsig;
	SpySigMark sig[SPY_MAX_SIGNEST];
	SpyPairTab pairs;
	struct SpyThread *next;	/* all threads, live and exited */
	/* count: the thread's instructions when it exited, and its
	 * functions' latest frames */
	ULong icount;
	ULong icount_base;	/* its count when first seen: a clone starts
				   with a copy of its parent's */
	Bool exited;
	struct CntFnTab *fns;
	struct LoopThread *loop;	/* loop: its active loops and read set */
} SpyThread;

extern SpyThread *spy_threads;	/* list */
extern SpyThread *spy_cur;	/* the thread running client code */
/* Mirrors of spy_cur's stack top, read by the instrumentation. */
extern UInt spy_cur_node;
extern Addr spy_cur_limit;

/* The pair a site judged its last event into, counted here until the
 * site judges one into another pair (or the profile is written): in a
 * loop that is most events, which then touch neither the pair cache nor
 * the pair (sqlite3 under LoadSpy spent 40 % of its load helper there).
 * Flushes are still many (LoadSpy: perl 1.2 billion, sqlite3 0.6 billion),
 * and most find their pair in the pair cache (perl: all but 0.01 %,
 * sqlite3: 85 %): a pair cache holding the counts itself, so that a flush
 * touches no pair, gains nothing measurable (bench/spy-ab --tool=load). */
typedef struct {
	struct SpyThread *t;	/* NULL: empty */
	SpyPair p;		/* the pair and its counts since the last flush */
} SpyMemo;

/* An instruction that accesses memory, in one superblock; the helpers get
 * a pointer to it (their "slot"). Its handle is its context node in the
 * calling context `node`, the last one a helper needed it in; the context
 * before that is kept too (a function called from two places alternates).
 * Read the handle through spy_site_cached or spy_site_handle, which check
 * the context. */
typedef struct {
	UInt handle;
	UInt node;		/* the handle's calling context; SPY_NO_NODE: none */
	UInt alt_handle, alt_node;
	UInt dtype;		/* of the access */
	Addr pc;
	SpyMemo memo;		/* next to the handle: the helpers touch both */
} SpySite;

#define SPY_NO_NODE 0xffffffffu

/* The accessing instructions of one translated superblock. */
typedef struct SpySB {
	UInt n;
	struct SpySB *next;	/* every superblock's sites, for their memos */
	SpySite site[];
} SpySB;

extern SpySB *spy_sbs;
/* Add the memos to their pairs and empty them (before the profile is
 * written), or only empty them (a forked child's profile starts empty). */
void spy_memos_flush(void);
void spy_memos_drop(void);
void spy_memo_flush(SpyMemo *m);
/* fn on every site's memo (a tool whose memos mean something else). */
void spy_memos_each(void (*fn)(SpyMemo *m));

/*
 * A site's handle is looked up when a helper needs it in a calling context
 * it was not looked up in (a DeadSpy load with nothing pending never
 * does), not at superblock entry: checking the context there and swapping
 * every site's handles when it changed costs a call at most entries in a
 * program whose functions are called from many places (139 million in
 * sqlite3).
 */
UInt spy_site_resolve(SpySite *slot);

/* The site's handle in the current context, or 0 if not looked up yet. */
static inline UInt spy_site_cached(const SpySite *slot)
{
	return LIKELY(slot->node == spy_cur_node) ? slot->handle : 0;
}

/* The site's handle in the current context, looked up if need be (a
 * handle is never 0). */
static inline UInt spy_site_handle(SpySite *slot)
{
	UInt h = spy_site_cached(slot);

	return LIKELY(h != 0) ? h : spy_site_resolve(slot);
}

SpyThread *spy_thread(ThreadId tid);
/* Push a frame on the running thread t for a call that pushed ret at sp
 * (frames at or below sp are over first); the new frame, its count
 * fields to be filled. */
SpyFrame *spy_frame_push(SpyThread *t, Addr ret, Addr sp, UInt node);
void spy_thread_switch(ThreadId tid);
/* On a thread's first run: the core's memory it filled and no one reads
 * given back (trim.c). */
void spy_trim_thread_start(void);
void spy_thread_exit(ThreadId tid);
/* fn for each live thread. */
void spy_threads_live(void (*fn)(ThreadId tid));
void spy_threads_after_fork(ThreadId tid);
UInt spy_thread_node(SpyThread *t);
void spy_unwind(SpyThread *t, Addr sp);
/* Thread tid's frames made again from its stack, for a tool that stopped
 * following its calls for a while (rvn between bursts). */
void spy_stack_rebuild(ThreadId tid);
void spy_signal_enter(ThreadId tid, Bool alt);
void spy_signal_leave(ThreadId tid);

VG_REGPARM(1) void spy_sb_returned(Addr sp);
/* A call instruction's return address, and the child node it pushed last
 * time with the parent it pushed it from: a call site in a loop pushes the
 * same node again and again, and needs no CCT lookup for it. */
typedef struct {
	Addr ret;
	UInt parent, child;
} SpyCallSite;

VG_REGPARM(2) void spy_on_call(SpyCallSite *cs, Addr sp);
/* In a translation: at its start, the check that a return left the
 * innermost frame; at its end, the frame a call pushes; each where guard
 * (an Ity_I1 atom, or NULL: always) holds (instrument.c). */
/* A new temp of out holding e. */
IRExpr *spy_ir_tmp(IRSB *out, IRType ty, IRExpr *e);
void spy_ir_check_return(IRSB *out, Int sp_off, IRExpr *guard);
void spy_ir_push_call(IRSB *out, Addr ret, Int sp_off, IRExpr *guard);
/* The value of atom e as up to four 64-bit pieces in p, low first; how
 * many (0: a type with no integer view). */
Int spy_ir_pieces(IRSB *out, IRExpr *e, IRExpr **p);
/* witch spy --tool=rvn's instrumentation (rvn.c). */
IRSB *rvn_instrument(IRSB *in, const VexGuestLayout *layout);
/* Context of the instruction at pc in thread t right now. */
UInt spy_context_at(SpyThread *t, Addr pc);

/* ---- shadow.c: per-byte context handles -------------------------------- */

#define SH_CHUNK_BITS 16
#define SH_CHUNK ((UWord)1 << SH_CHUNK_BITS)
#define SH_PRIMARY_BITS 21	/* the primary table covers addresses below 2^37 */
#define SH_PRIMARY ((UWord)1 << SH_PRIMARY_BITS)

/*
 * A chunk shadows 64 KiB: a 32-bit context handle per byte, then
 *   dead    a bitmap of the bytes whose last access was a store (pending);
 *           a handle means something only where its bit is set
 *   silent  nothing: handle 0 means no previous writer
 *   load    nothing: the word is the handle (upper 24 bits) and the byte
 *           the location held when last loaded (lower 8); handle 0: none
 */
extern UInt *sh_primary[SH_PRIMARY];

void sh_init(int tool);
UInt *sh_aux(Addr a, Bool create);
UInt *sh_alloc(Addr a);
void sh_clear(Addr a, SizeT len);
void sh_copy(Addr from, Addr to, SizeT len);
ULong sh_chunks_in_use(void);
/* What those chunks take (the dead tool's have a bitmap too). */
ULong sh_bytes_in_use(void);

/* Handles of the chunk holding a (indexed by a's offset), or NULL when
 * nothing was ever recorded there. */
static inline UInt *sh_chunk(Addr a)
{
	UWord i = a >> SH_CHUNK_BITS;

	if (LIKELY(i < SH_PRIMARY))
		return sh_primary[i];
	return sh_aux(a, False);
}

static inline UInt *sh_chunk_w(Addr a)
{
	UInt *c = sh_chunk(a);

	return LIKELY(c != NULL) ? c : sh_alloc(a);
}

/* DeadSpy's pending bits follow the handles. */
static inline UChar *sh_bits(UInt *chunk)
{
	return (UChar *)(chunk + SH_CHUNK);
}

/* ---- analysis.c: the per-access helpers -------------------------------- */

#define ACC_SIZE(f) ((f) & 0xffff)
#define ACC_IMPLICIT 0x10000	/* push/pop/call/ret: judged, never watched */
#define ACC_STORED 0x20000	/* compare-and-swap that stored */

VG_REGPARM(3) void spy_dead_load(Addr a, UWord flags, SpySite *slot);
VG_REGPARM(3) void spy_dead_store(Addr a, UWord flags, SpySite *slot);
void spy_silent_store(Addr a, UWord flags, SpySite *slot, ULong v0);
void spy_silent_store16(Addr a, SpySite *slot, ULong v0, ULong v1);
void spy_silent_store32(Addr a, SpySite *slot, ULong v0, ULong v1, ULong v2, ULong v3);
void spy_silent_snap(Addr a, UWord size);
void spy_silent_after(Addr a, UWord size, SpySite *slot);
VG_REGPARM(3) void spy_load_value(Addr a, UWord flags, SpySite *slot, ULong v0);
void spy_load_value16(Addr a, SpySite *slot, ULong v0, ULong v1);
void spy_load_value32(Addr a, SpySite *slot, ULong v0, ULong v1, ULong v2, ULong v3);
void spy_load_mem(Addr a, UWord size, SpySite *slot);
void spy_cas(Addr a, UWord flags, SpySite *slot, ULong old_lo, ULong old_hi);

/* Accesses made by the kernel on behalf of thread t (system calls). */
void spy_kernel_read(SpyThread *t, Addr a, SizeT len);
void spy_kernel_write(SpyThread *t, Addr a, SizeT len);

/* ---- heap.c ------------------------------------------------------------ */

/* Is the function starting at pc glibc's free or realloc? */
enum spy_heap_fn { HEAP_NONE, HEAP_FREE, HEAP_REALLOC };
int spy_heap_fn_at(Addr pc);
VG_REGPARM(1) void spy_free_enter(Addr p);
VG_REGPARM(2) void spy_realloc_enter(Addr p, SizeT size);
void spy_realloc_done(SpyThread *t, SpyFrame *f);
VG_REGPARM(2) void spy_on_ret(Addr rax, Addr sp);
extern UInt spy_reallocs_pending;

/* ---- child.c ----------------------------------------------------------- */

/* Run argv[0] with argv (stdin and stdout /dev/null, stderr into the file
 * err) and wait for it: no SIGCHLD, and the client's wait(2) never sees
 * it. The wait status of a process that exited as it did (128 + the
 * signal that killed it, 127 if it could not run), or -1. */
Int spy_run_child(const HChar **argv, const HChar *err);

/* ---- instrument.c ------------------------------------------------------ */

IRSB *spy_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
		     const VexGuestExtents *vge, const VexArchInfo *archinfo, IRType gWordTy,
		     IRType hWordTy);

/* ---- count.c, count_calls.c, count_out.c ------------------------------- */

/* A call instruction, one record per address whatever translations hold it. */
typedef struct CntCall {
	Addr addr, ret;		/* the call, and the instruction after it */
	Addr fn;		/* the function holding it, 0 if unknown */
	Addr target;		/* a direct call's target, 0 if computed */
	Int module;		/* spy_mods index of addr, -1 if none */
	ULong returns;		/* times it returned to ret */
	ULong below;		/* instructions below it, in frames that ended */
	ULong live;		/* count_out.c: ... and in frames on a stack */
	struct CntSB *ret_sb;	/* the translation that last returned to ret, */
	ULong ret_count;	/* ... and how often since it became the last */
	struct SpyThread *cached;	/* the thread whose table the next three are in */
	Int *fn_top, *target_top;	/* fn's and target's latest frames there */
	Addr seen;		/* a computed call's last target, */
	Int *seen_top;		/* ... and its latest frame there */
	struct CntCall *next;	/* all call sites */
} CntCall;

/* A side exit of a translation: from instruction insn to dst. A && join
 * skips instructions and may go on in the translation: at resume. */
typedef struct {
	ULong count;		/* taken */
	Addr dst;
	UInt insn;		/* index in CntSB.insn */
	UInt resume;		/* 0: none, it leaves the translation */
} CntExit;

/* How a translation ends: falls through to the next instruction, jumps,
 * calls or returns; to a constant target, or to one computed. */
enum cnt_end { CNT_NEXT, CNT_JUMP, CNT_CALL, CNT_RET };

/* One instrumented translation. Its instructions run entries times,
 * less the side exits taken before them. */
typedef struct CntSB {
	ULong entries;		/* hot: read and written by the translation */
	Addr ind_last;		/* a computed end's last target, */
	ULong ind_count;	/* taken since it became the last one */
	struct CntSB *next;	/* all translations */
	CntCall *call;		/* CNT_CALL: the call site */
	CntExit *exit;
	UInt ninsn, nexit;
	Int module;		/* spy_mods index, -1 if none */
	UChar end;		/* enum cnt_end */
	Bool computed;		/* the end's target is computed, not end_dst */
	Bool rep_loop;		/* a rep string op's own iterations: only its
				   exits to other code count, entries stays 0 */
	Addr end_dst;
	struct {
		Addr addr;
		UShort len;
		Bool repeat;	/* a copy of the one before: a string op's repetition */
		Bool call;	/* a call VEX followed into its target, the next one */
	} insn[];
} CntSB;

/* Edges to computed targets (count_calls.c): an open-addressing table,
 * kind 0 in a free slot. */
typedef struct {
	Addr src, dst;
	ULong count;
	UChar kind;		/* 'j', 'c' or 'r' */
} CntEdge;

extern CntEdge *cnt_edges;
extern UInt cnt_edge_mask;	/* slots - 1; 0 before the first */
extern CntSB *cnt_sbs;
extern ULong cnt_inexact;	/* translations whose counts are not exact */
extern CntCall *cnt_calls;
/* Where in each thread's first shadow guest state its instruction count
 * is (any offset: witchspy keeps no other shadow state). */
#define CNT_ICOUNT 0

IRSB *cnt_instrument(IRSB *in, const VexGuestLayout *layout);
CntCall *cnt_call_site(Addr addr, Addr ret);
/* Helpers the translations call, with the thread's instruction count. */
void cnt_on_call(CntSB *sb, Addr sp, Addr target, ULong icount);
/* A call in mid-translation. */
VG_REGPARM(3) void cnt_on_chased_call(CntCall *cs, Addr sp, ULong icount);
void cnt_on_ret(CntSB *sb, Addr sp, Addr target, ULong icount);
VG_REGPARM(2) void cnt_on_computed(CntSB *sb, Addr target);
/* A frame of thread t ends: its instructions go to its call site. */
void cnt_frame_popped(SpyThread *t, SpyFrame *f);
/* Instructions below a live frame so far. */
ULong cnt_frame_below(const SpyThread *t, const SpyFrame *f);
/* An edge computed at run time was taken count times (count_calls.c). */
void cnt_edge_add(Addr src, Addr dst, UChar kind, ULong count);
/* A forked child counts from zero. */
void cnt_after_fork(void);
/* A thread's table of functions goes (the thread, after a fork). */
void cnt_thread_free(SpyThread *t);
/* The thread exits: its count from now on is this one. */
void cnt_thread_exit(SpyThread *t);
/* A thread first seen: its count so far is not its own. */
void cnt_thread_new(SpyThread *t);
/* Instructions all threads executed so far (the progress line). */
ULong cnt_instructions(void);

struct core_profile;
/* The count tool's stats and records, modules first (count_out.c). */
void cnt_write(struct core_profile *o);

/* ---- progress.c: the progress line on the terminal ------------------ */

/* --witch-progress=TTY: the terminal, --witch-progress-label=TEXT: what
 * the line starts with. */
extern const HChar *progress_tty, *progress_label;

void progress_init(void);
/* At each scheduler timeslice, with the superblocks executed so far. */
void progress_tick(ULong blocks_done);
/* The client is about to make system call sysno. */
void progress_syscall(UInt sysno, const UWord *args);
/* Before witchspy's own output, at exit or exec: the line goes. */
void progress_clear(void);
/* A forked child leaves the line to its parent. */
void progress_after_fork(void);

/* ---- profile.c --------------------------------------------------------- */

/* A process image starts: its start time, host, and a launcher's rank. */
void spy_profile_start(void);
/* Whether the program at path is a launcher's own (core/job.h). */
Bool spy_is_launcher(const HChar *path);
/* The module lines of the modules given an id (spy_mods[].id >= 0). */
void spy_profile_modules(struct core_profile *o);
/* Write <outdir>/<program>-<pid>.witch; returns the path or NULL. */
const HChar *spy_profile_write(Bool complete);

#endif
