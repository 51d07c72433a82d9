/*
 * rvn.h - witch spy --tool=rvn: redundant computation found by value
 * numbering at run time (the RVN thesis, chapter 2). What rvn.c (the IR)
 * and rvn_run.c (the helpers and their tables) share.
 *
 * A value number (VN) is 32 bits, held in 64 (sign-extended). Computations
 * get theirs by hashing their operator with their operands' numbers, in
 * the translation itself (rvn_num below, the same function in C and in
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
 * child of that context for it (rvn_sites.c): a lookup in a table of the
 * context's, a cache miss where a program has many contexts. A function
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

/* A site's redundant events while they go to one pair, counted here:
 * a pair's record is seldom in the cache, the site's is. */
typedef struct {
	SpyThread *t;		/* NULL: empty */
	UInt first, again;	/* the pair */
	UInt n[3];		/* computations, loads, stores */
} RvnMemo;

/* One instruction that loads, stores or computes. */
typedef struct {
	ULong kept[RVN_KEEP];	/* keys it put in the table, oldest first out */
	Addr pc;
	RvnMemo memo;
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
#define RVN_SLAB 1024
extern RvnSite **rvn_slabs;

static inline RvnSite *rvn_site_by_id(UInt id)
{
	return &rvn_slabs[(id - 1) / RVN_SLAB][(id - 1) % RVN_SLAB];
}
UInt rvn_site_resolve(RvnSite *s);
/* A memo's counts added to its pair, and it emptied. */
void rvn_memo_flush(RvnMemo *m);
/* Every site's memo: added to its pair, or emptied (spy_memos_flush and
 * spy_memos_drop). */
void rvn_memos_flush(void);
void rvn_memos_drop(void);

/* The site's handle in the current context. */
static inline UInt rvn_site_handle(RvnSite *s)
{
	return LIKELY(s->ctx[0] == spy_cur_node) ? s->handle[0] : rvn_site_resolve(s);
}

/* A load's or store's one argument for what it is: its site's id, and
 * flags beside its size (an immediate of 5 bytes, where a site's address
 * and the flags took 15). */
#define RVN_SIZE(f) ((f) & 0xff)
#define RVN_IMPLICIT 0x100	/* push, pop, call, ret: carried, not judged */
#define RVN_ID_SHIFT 9

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

/*
 * Numbers are 32 bits, sign-extended into 64, so that a constant number
 * is an immediate operand in the translated code (zero-extended, half of
 * them took a 10-byte move first). An operation's number is its operator's
 * (itself a number) and its operands' numbers stirred together two at a
 * time: each pair packed into one word, which keeps both whole, xored into
 * the state and stirred, and the result the state's top half. The same
 * functions are built in IR (rvn.c): a binary operation costs two
 * multiplies by an immediate, where two mixes of one operand each took
 * four multiplies by 64-bit constants (docs/spy.md: sqlite3's translations
 * went from 38 to 28 times its code with the rest of that change).
 */
#define RVN_MUL 0xFFFFFFFF9E3779B1ULL	/* odd, and a 32-bit immediate */

/* A bijection of 64 bits whose top half every bit reaches. */
static inline ULong rvn_stir(ULong x)
{
	x *= RVN_MUL;
	x ^= x >> 32;
	return x * RVN_MUL;
}

/* A state's number: its top half, sign-extended. */
static inline ULong rvn_top(ULong x)
{
	return (ULong)((Long)x >> 32);
}

/* Two numbers in one word, each recoverable from it. */
static inline ULong rvn_pack(ULong a, ULong b)
{
	return a << 32 ^ b;
}

/* The number of operator op over the numbers a[0..n-1], in this order. */
static inline ULong rvn_num(ULong op, const ULong *a, Int n)
{
	ULong s = op;
	Int i;

	for (i = 0; i < n; i += 2)
		s = rvn_stir(s ^ (i + 1 < n ? rvn_pack(a[i], a[i + 1]) : a[i]));
	return rvn_top(s);
}

/* The number of a constant seed (an operator's, a piece's). */
static inline ULong rvn_seed(ULong seed)
{
	return rvn_top(rvn_stir(seed));
}

/* The operator of the k-th piece (of g bytes) of a value: a product,
 * not a stirred seed, as a load checks each cell after a value's first
 * against its piece. */
static inline ULong rvn_piece_op(UInt g, UInt k)
{
	return 0xD6E8FEB86659FD93ULL * (g * 64 + k);
}

/* The k-th piece (of g bytes) of the value numbered v. */
static inline ULong rvn_piece(ULong v, UInt g, UInt k)
{
	return rvn_num(rvn_piece_op(g, k), &v, 1);
}

/* The operators of parts: a part of a value read (at where = its offset
 * << 8 | its size), several cells or slots read as one, and a part
 * written over what was there. */
#define RVN_OP_PART_READ rvn_seed(0x5EC7)
#define RVN_OP_WHOLE_READ rvn_seed(0x701E)
#define RVN_OP_PART_WRITE rvn_seed(0x8CB92BA72F3D8DD7ULL)

/*
 * Computations waiting to be judged: a translation puts each judged
 * result's site id and number in its thread's second shadow guest state,
 * a few bytes of code where a store to a global took four times as many,
 * and judges them together (rvn_judge_all) before it can leave, at a side
 * exit that is taken and at its end, so that the table's probes of one
 * call can overlap in the cache (those of its old generation are
 * prefetched first) instead of each waiting for its own miss. They are
 * judged in the same order as one by one, in the same calling context,
 * and nothing else a translation calls reads what judging changes.
 * A translation with more judged results than fit judges them earlier.
 */
#define RVN_PENDING 64

typedef struct {
	UInt id;		/* the site's (rvn_site_by_id) */
	UInt vn;
} RvnPending;

/* Where in the guest state they are: the second shadow's start. */
extern Int rvn_pending_off;

/* The helpers the translations call. */
ULong rvn_load(UWord flags, Addr a);
void rvn_store(UWord flags, Addr a, ULong vn);
VG_REGPARM(2) void rvn_judge_all(const UChar *gs, UWord n);
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
 * phase has translations of its own (rvn_burst.c), and all are discarded
 * at a switch, made out of generated code (rvn_sched_stop). A burst starts afresh: numbers made before
 * it are forgotten, and the threads' frames are read off their stacks.
 */
extern ULong rvn_icount;	/* guest instructions so far: counted in bursts,
				   estimated between them (rvn_sched) */
extern ULong rvn_next_switch;	/* the count at which the phase changes */
extern ULong rvn_on;		/* in a burst (1) or between bursts (0) */
/* Thread tid is about to run client code, blocks_done blocks run so far
 * (Valgrind's start_client_code): the count moves on, and between bursts
 * the run stops where the switch falls due. */
void rvn_sched(ThreadId tid, ULong blocks_done);
/* Thread tid stopped running client code (Valgrind's stop_client_code):
 * the count moves on, and a burst starts when due. */
void rvn_sched_stop(ThreadId tid, ULong blocks_done);
/* A burst's translation's start, after the IMark of its first
 * instruction: its instructions counted. */
void rvn_burst_count(IRSB *out, Int ninsn);
extern struct rvn_stats rvn_st;

void rvn_init(void);
void rvn_after_fork(void);

struct core_profile;
/* The profile: the stats, and a thread's pairs as `r` lines (how many). */
void rvn_write_stats(struct core_profile *o);
UInt rvn_pair_lines(const SpyPairTab *pt);
void rvn_write_pairs(struct core_profile *o, const SpyPairTab *pt, const UInt *local);

#endif
