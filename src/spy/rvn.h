/*
 * rvn.h - witch spy --tool=rvn: redundant computation found by value
 * numbering at run time (the RVN thesis, chapter 2). What rvn.c (the IR)
 * and rvn_run.c (the helpers and their tables) share.
 *
 * A value number (VN) is 32 bits, held in 64 (zero above). Computations
 * get theirs by hashing their operator with their operands' numbers, in
 * the translation itself (rvn_mix below, the same function in C and in
 * IR); the same operator on the same numbers gives the same number, which
 * is value numbering without a table. Two different values share a
 * number by chance one time in 2^32 (the thesis's own hash, 28 bits of
 * each operand, measured 0.095 % collisions); 64 bits doubled what memory
 * costs. Memory and registers hold the numbers of what was last put
 * there; memory never written gets a fresh number when first loaded.
 * Only the judging needs tables: whether a number was computed before
 * (rvn_judge), and whether a load instruction read the number at an
 * address (rvn_load).
 */
#ifndef WITCHSPY_RVN_H
#define WITCHSPY_RVN_H

#include "pub_tool_basics.h"

#include "spy.h"

/* One judged instruction: its context handles and the numbers it made,
 * the last RVN_KEEP of which the table keeps. */
#define RVN_KEEP 4

/*
 * An instruction's handle in a calling context is the context tree's
 * child of that context for it (spy_cct_child): a lookup in a table of
 * every node, a cache miss where a program has many contexts. A function
 * called from many places runs its instructions in several contexts in
 * turn (sqlite3 under rvn looked up a node for half of its events with
 * the last two kept): each instruction keeps its last RVN_CONTEXTS,
 * most recent first.
 */
#define RVN_CONTEXTS 4

/* --by=value: an instruction's last results' operator and operands,
 * hashed, and their contexts (spy_cfg.history of each). */
typedef struct {
	UInt n, next;
	ULong *h;
	UInt *node;
} RvnSeen;

/* One instruction that loads, stores or computes. */
typedef struct {
	ULong kept[RVN_KEEP];	/* keys it put in the table, oldest first out */
	Addr pc;
	SpyMemo memo;		/* its redundant events while they go to one pair */
	RvnSeen *seen;		/* --by=value, made when first judged */
	UInt ctx[RVN_CONTEXTS];	/* spy_cur_node when it ran; SPY_NO_NODE: none */
	UInt handle[RVN_CONTEXTS];	/* its node in ctx[i] */
	UInt epoch;		/* the burst its rings are of */
	UInt id;		/* 1, 2, ...: its name in its contexts' tables */
	UChar nkept, next_out;
} RvnSite;

/* The site of the instruction at pc, one whatever translations hold it
 * (rvn_sites.c). */
RvnSite *rvn_site_at(Addr pc);
UInt rvn_site_resolve(RvnSite *s);
/* Every site's memo: added to its pair, or emptied (spy_memos_flush and
 * spy_memos_drop). */
void rvn_memos_flush(void);
void rvn_memos_drop(void);

/* The site's handle in the current context. */
static inline UInt rvn_site_handle(RvnSite *s)
{
	return LIKELY(s->ctx[0] == spy_cur_node) ? s->handle[0] : rvn_site_resolve(s);
}

/* Flags of a load or store, beside its size. */
#define RVN_SIZE(f) ((f) & 0xff)
#define RVN_IMPLICIT 0x100	/* push, pop, call, ret: carried, not judged */

/* Memory: 4-byte cells, each holding a VN and who last put or read it
 * (rvn_run.c), in 8 bytes. A value wider than a cell is its VN in the
 * first cell and rvn_piece(vn, 4, k) in the k-th, so that loading it
 * whole gives its VN back; registers do the same with 8-byte slots. */
#define RVN_CELL 4
#define RVN_CELL_SHADOW 8	/* bytes of shadow a cell takes */

/* Bytes a translation takes, on average: Valgrind sizes its cache by it
 * (and takes at most 792). */
#define RVN_TRANSLATION_B 700

/* Handles fit in a cell beside the bits of a read (spy_handle). */
#define RVN_HANDLE_BITS 27
#define RVN_HANDLES (1u << RVN_HANDLE_BITS)

/* A number from x: its top half after a multiply, which every bit of x
 * reaches. */
static inline ULong rvn_fmix(ULong x)
{
	x ^= x >> 31;
	x *= 0x9E3779B97F4A7C15ULL;
	return x >> 32;
}

/* The k-th piece (of g bytes) of the value numbered v. */
static inline ULong rvn_piece(ULong v, UInt g, UInt k)
{
	return rvn_fmix(v + 0xD6E8FEB86659FD93ULL * (g * 64 + k));
}

/* What a part of a register or cell held, before what was written into
 * the part is mixed in: rvn_mix(rvn_mix(PART_SEED, old), new). */
#define RVN_PART_SEED 0x8CB92BA72F3D8DD7ULL

/* h extended by one more operand number. */
static inline ULong rvn_mix(ULong h, ULong v)
{
	return rvn_fmix((h ^ v) * 0xBF58476D1CE4E5B9ULL + 0x94D049BB133111EBULL);
}

/*
 * Computations waiting to be judged: a translation writes each judged
 * result's site and number here and judges them together (rvn_judge_all)
 * before it can leave, at a side exit that is taken and at its end, so
 * that the table's probes of one call can overlap in the cache (those of
 * its old generation are prefetched first) instead of each waiting for
 * its own miss. They are
 * judged in the same order as one by one, in the same calling context,
 * and nothing else a translation calls reads what judging changes.
 * A translation with more judged results than fit judges them earlier.
 */
#define RVN_PENDING 64

typedef struct {
	RvnSite *s;
	ULong vn;
} RvnPending;

extern RvnPending rvn_pending[RVN_PENDING];

/* The helpers the translations call. */
ULong rvn_load(RvnSite *s, Addr a, UWord flags);
void rvn_store(RvnSite *s, Addr a, UWord flags, ULong vn);
VG_REGPARM(1) void rvn_judge_all(UWord n);
VG_REGPARM(2) void rvn_judge_value(RvnSite *s, ULong h);
ULong rvn_fresh(void);
/* A helper wrote guest state at [off, off + size): fresh numbers there. */
void rvn_regs_written(UWord off, UWord size);

/* The core wrote registers (a system call's result, a signal frame). */
void rvn_post_reg_write(CorePart part, ThreadId tid, PtrdiffT off, SizeT size);

/* The set of computed numbers' keys (rvn_table.c): add puts key in with
 * node, unless it is there already: then False, and *first its node. */
void rvn_table_init(void);
Bool rvn_table_add(ULong key, UInt node, UInt *first);
void rvn_table_remove(ULong key);
/* Start bringing key's place in the table into the cache, where it may
 * be far. */
void rvn_table_prefetch(ULong key);
void rvn_table_clear(void);

/* Totals for the profile's stats. */
struct rvn_stats {
	ULong computations, loads, stores;
	ULong redundant_computations, redundant_loads, redundant_stores;
	ULong dropped;		/* numbers the bounded tables forgot */
	ULong judged;		/* --witch-burst: instructions in the bursts that ended */
	ULong bursts;
};

/*
 * --witch-burst=ON,OFF (the thesis's bursty sampling): ON instructions
 * judged, then OFF run with only the instruction count, and again. Each
 * phase has translations of its own (rvn_burst.c): every translation
 * starts with the switch, which calls rvn_switch when due and then has
 * all translations discarded. A burst starts afresh: numbers made before
 * it are forgotten, and the threads' frames are read off their stacks.
 */
extern ULong rvn_icount;	/* guest instructions so far: counted in bursts,
				   estimated between them (rvn_sched) */
extern ULong rvn_next_switch;	/* the count at which the phase changes */
extern ULong rvn_on;		/* in a burst (1) or between bursts (0) */
void rvn_switch(void);
/* Thread tid is about to run client code, blocks_done blocks run so far
 * (Valgrind's start_client_code): between bursts, the count moves on. */
void rvn_sched(ThreadId tid, ULong blocks_done);
/* A burst's translation's start, after the IMark of its first
 * instruction, at addr: the switch and the count. */
void rvn_burst_start(IRSB *out, Addr addr, Int ninsn);
/* A translation between bursts: in, the switch added. */
IRSB *rvn_burst_between(IRSB *in);
extern struct rvn_stats rvn_st;

void rvn_init(void);
void rvn_after_fork(void);

struct core_profile;
/* The profile: the stats, and a thread's pairs as `r` lines (how many). */
void rvn_write_stats(struct core_profile *o);
UInt rvn_pair_lines(const SpyPairTab *pt);
void rvn_write_pairs(struct core_profile *o, const SpyPairTab *pt, const UInt *local);

#endif
