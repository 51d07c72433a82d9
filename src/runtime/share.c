/*
 * share.c - witch record --craft=share (share.h): a thread's sampled
 * stores, watched by the other threads of the process.
 *
 * Debug registers are per thread: a thread's own watch never sees another
 * thread's access. So a sampled store goes on a board every thread reads,
 * and each thread picks up, at each of its own samples, the stores the
 * others published since its last one: it arms them on its own debug
 * registers, in its own handler. The publishing thread could instead arm
 * the others' registers itself (perf_event_open on their tids), but then
 * it would pay, in its own handler, a system call per thread per sample,
 * and slots would be written by two threads at once; picking up costs
 * each thread only the watches it arms, keeps each slot its own thread's,
 * and a thread that is not running (blocked, or waiting for a core) can
 * touch no cache line anyway. The price is a delay of up to one sampling
 * period of the watching thread before it watches.
 *
 * What is watched: a debug register watches at most 8 aligned bytes, a
 * line has 64. Each watch takes one of the line's 8 words, drawn
 * uniformly: a trap on the word says the thread accessed it, true sharing
 * when its bytes overlap the store's, false sharing when not. A word is
 * watched with probability 1/8, so a trap stands for 8 (the expected sum
 * over the line's words is the accesses to all of them). Of the k stores
 * a thread finds at a sample, the reservoir keeps as many as it has
 * registers (m), each standing for k/m. A watch lasts until the thread's
 * next sample, which ends it untripped (the line was not accessed by this
 * thread within its sampling period) and arms the next stores: sharing
 * is accesses close in time. A thread watches only stores published
 * after it started, and none older than WINDOW_NS. Only stores are sampled: sharing needs a write, and a load
 * that shares a line with a store is found from the store's side.
 *
 * A record counts the traps of one (store context, trapping context,
 * kind, line, offsets) and sums their weights; the store's context, from
 * the other thread's tree, is copied into this thread's, which alone
 * writes it. Everything here runs in the sample and trap handlers:
 * atomics and preallocated memory only.
 */
#include <linux/hw_breakpoint.h>
#include <string.h>
#include <sys/mman.h>

#include "core/cct.h"
#include "core/clock.h"
#include "runtime/hit.h"
#include "runtime/share.h"

/* Stores kept on the board: a thread looking less often than every 256
 * publications misses the oldest, which WINDOW_NS would mostly have
 * dropped anyway. */
#define BOARD 256u
/* A store published this long before a thread looks is not watched: the
 * thread slept through it. Not shorter: threads that take turns on one
 * core share lines too, and wait their turn. */
#define WINDOW_NS 1000000000ull
/* Records per thread; more are counted in `pairs_dropped`. */
#define RECORDS (1u << 14)
/* The thread's own frames: below its stack pointer (the red zone) and a
 * page above it. */
#define RED_ZONE 128
#define OWN_FRAMES 4096

struct entry {
	uint64_t seq;		/* odd while written */
	uint64_t n;		/* its number on the board (slot n % BOARD) */
	const struct wt_thread *from;
	uint32_t node;		/* the store's context in from's tree */
	uintptr_t line;
	uint64_t bytes;		/* bit i: byte line + i stored */
	uint64_t when_ns;	/* CLOCK_MONOTONIC */
};

static struct entry board[BOARD];
static uint64_t published;	/* numbers given out so far */

int wt_share_thread_init(struct wt_thread *t)
{
	size_t bytes = sizeof(struct wt_share_recs) + RECORDS * sizeof(struct wt_share_rec) +
		       2 * RECORDS * sizeof(uint32_t);
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	t->share = (struct wt_share_recs *)p;
	t->share->v = (struct wt_share_rec *)(p + sizeof(struct wt_share_recs));
	t->share->max = RECORDS;
	/* ids + 1: the zero pages are an empty table */
	t->share->hash = (uint32_t *)(t->share->v + RECORDS);
	t->share->mask = 2 * RECORDS - 1;
	t->share_next = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
	return 0;
}

void wt_share_after_fork(void)
{
	memset(board, 0, sizeof(board));
	published = 0;
}

/*
 * A store to the thread's own stack frames: addressed from the stack
 * pointer, or near it. Another thread may be handed a pointer into a
 * thread's stack, but not into the frames it is running in.
 */
static int private_store(const struct wd_access *acc, uintptr_t ea, const ucontext_t *uc)
{
	uintptr_t sp;

	if (acc->base == REG_RSP)
		return 1;
	if (!uc)
		return 0;
	sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	return ea + RED_ZONE >= sp && ea < sp + OWN_FRAMES;
}

/* Bits over the line at `line` of the bytes own selects at ea. */
static uint64_t line_bytes(uintptr_t line, uintptr_t ea, uint64_t own)
{
	if (ea >= line)
		return ea - line < WT_LINE ? own << (ea - line) : 0;
	return line - ea < 64 ? own >> (line - ea) : 0;
}

void wt_share_publish(struct wt_thread *t, const struct wd_access *acc, uintptr_t ea,
		      uint64_t own, uintptr_t piece, uint32_t node, const ucontext_t *uc)
{
	uintptr_t line = piece & ~(uintptr_t)(WT_LINE - 1);
	uint64_t n, s;
	struct entry *e;

	if (private_store(acc, ea, uc)) {
		t->st.private_samples++;
		return;
	}
	n = __atomic_fetch_add(&published, 1, __ATOMIC_RELAXED);
	e = &board[n % BOARD];
	s = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	/* Another thread still writing this slot, 256 numbers ago: it was
	 * descheduled mid-write. This store is lost, not torn. */
	if ((s & 1) ||
	    !__atomic_compare_exchange_n(&e->seq, &s, s + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&e->n, n, __ATOMIC_RELAXED);
	__atomic_store_n(&e->from, t, __ATOMIC_RELAXED);
	__atomic_store_n(&e->node, node, __ATOMIC_RELAXED);
	__atomic_store_n(&e->line, line, __ATOMIC_RELAXED);
	__atomic_store_n(&e->bytes, line_bytes(line, ea, own), __ATOMIC_RELAXED);
	__atomic_store_n(&e->when_ns, core_clock_ns(CLOCK_MONOTONIC), __ATOMIC_RELAXED);
	__atomic_store_n(&e->seq, s + 2, __ATOMIC_RELEASE);
	t->st.shared_samples++;
}

/* Entry n of the board, whole: 1, or 0 while it is written or gone. */
static int read_entry(uint64_t n, struct entry *out)
{
	const struct entry *e = &board[n % BOARD];
	uint64_t s = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);

	if (s & 1)
		return 0;
	out->n = __atomic_load_n(&e->n, __ATOMIC_RELAXED);
	out->from = __atomic_load_n(&e->from, __ATOMIC_RELAXED);
	out->node = __atomic_load_n(&e->node, __ATOMIC_RELAXED);
	out->line = __atomic_load_n(&e->line, __ATOMIC_RELAXED);
	out->bytes = __atomic_load_n(&e->bytes, __ATOMIC_RELAXED);
	out->when_ns = __atomic_load_n(&e->when_ns, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&e->seq, __ATOMIC_RELAXED) == s && s && out->n == n && out->from;
}

/*
 * The store's calling context, from its thread's tree into t's. Nodes
 * never change once made, and the board's release made the store's and
 * its ancestors' visible; a parent always has a smaller id.
 */
static uint32_t copied_context(struct wt_thread *t, const struct entry *e)
{
	const struct wt_cct *c = &e->from->cct;
	uint32_t id = e->node, nn = __atomic_load_n(&c->nnodes, __ATOMIC_ACQUIRE);
	uintptr_t pcs[WT_MAX_FRAMES];
	int n = 0;

	while (id && id < nn && n < WT_MAX_FRAMES) {
		uint32_t parent = c->nodes[id].parent;

		pcs[n++] = c->nodes[id].pc;
		if (parent >= id)
			break;
		id = parent;
	}
	if (n == WT_MAX_FRAMES)
		t->cct.frames_truncated++;
	return n ? wt_cct_path(&t->cct, pcs, n) : 0;
}

/* Watch one word of e's line, drawn at random, in slot s. */
static void watch_line(struct wt_thread *t, struct wt_slot *s, const struct entry *e,
		       double weight)
{
	uintptr_t word = e->line + 8 * (wt_rand(&t->rng) % WT_LINE_WORDS);

	if (wt_slot_program(t, s, HW_BREAKPOINT_RW, word, 8) < 0) {
		t->st.arm_failed++;
		s->state = WT_SLOT_FREE;
		return;
	}
	/* The store as the trap handler sees a watch (wt_slot_watched):
	 * hit.c gives the trapping access's bytes over the whole line. */
	memset(&s->acc, 0, sizeof(s->acc));
	s->acc.kind = WD_STORE;
	s->acc.size = WT_LINE;
	s->acc.base = s->acc.index = WD_REG_NONE;
	s->acc.scale = 1;
	s->ea = e->line;
	s->own = e->bytes;
	s->watch_node = copied_context(t, e);
	s->weight = weight;
	s->skip_self = 0;
	s->have_value = 0;
	s->value_before = 0;
	wt_slot_seen(s, NULL);
	s->state = WT_SLOT_WATCH;
	t->st.watchpoints_armed++;
	t->st.share_watches++;
}

void wt_share_expire(struct wt_thread *t)
{
	int i;

	for (i = 0; i < t->nslots; i++) {
		if (t->slot[i].state != WT_SLOT_WATCH)
			continue;
		t->st.share_expired++;
		wt_slot_disable(t, &t->slot[i]);
	}
}

void wt_share_pickup(struct wt_thread *t)
{
	struct entry chosen[WT_MAX_SLOTS], e;
	uint64_t head = __atomic_load_n(&published, __ATOMIC_ACQUIRE), n = t->share_next, seen = 0;
	uint64_t now = core_clock_ns(CLOCK_MONOTONIC);
	unsigned mask = 0;
	int j;

	if (head - n > BOARD)
		n = head - BOARD;
	t->share_next = head;
	/* A window of its own for each sample: all registers are free. */
	wt_reservoir_freed(&t->reservoir, 0);
	for (; n < head; n++) {
		if (!read_entry(n, &e) || e.from == t)
			continue;
		if (e.when_ns < now && now - e.when_ns > WINDOW_NS) {
			t->st.share_stale++;
			continue;
		}
		seen++;
		j = wt_reservoir_choose(&t->reservoir, mask, wt_rand(&t->rng));
		if (j < 0)
			continue;
		chosen[j] = e;
		mask |= 1u << j;
	}
	t->st.share_candidates += seen;
	for (j = 0; j < t->nslots; j++)
		if (mask & (1u << j))
			watch_line(t, &t->slot[j], &chosen[j],
				   (double)WT_LINE_WORDS * (double)seen / __builtin_popcount(mask));
}

/* First byte and span of the bytes set in b (b != 0). */
static void span(uint64_t b, uint8_t *off, uint8_t *len)
{
	*off = (uint8_t)__builtin_ctzll(b);
	*len = (uint8_t)(64 - __builtin_clzll(b) - *off);
}

static uint64_t key_hash(const struct wt_share_rec *r)
{
	return core_cct_hash((uint64_t)r->watch << 32 | r->trap,
			     r->line ^ (uint64_t)r->kind << 56 ^ (uint64_t)r->woff << 48 ^
				     (uint64_t)r->toff << 40);
}

static int same_key(const struct wt_share_rec *a, const struct wt_share_rec *b)
{
	return a->watch == b->watch && a->trap == b->trap && a->kind == b->kind &&
	       a->line == b->line && a->woff == b->woff && a->toff == b->toff;
}

/* The heap block holding the store's bytes, and the call that made it. */
static void name_block(struct wt_thread *t, struct wt_share_rec *r)
{
	uintptr_t site;

	if (!wt_blocks_find(r->line + r->woff, &r->block, &r->block_size, &site))
		return;
	/* The call instruction, as a leaf: its return address less one. */
	site -= site ? 1 : 0;
	r->site = site ? wt_cct_path(&t->cct, &site, 1) : 0;
}

/* The record for key k, made if new; NULL when the table is full. */
static struct wt_share_rec *record(struct wt_thread *t, const struct wt_share_rec *k)
{
	struct wt_share_recs *rs = t->share;
	uint32_t h = (uint32_t)(key_hash(k) & rs->mask), id;
	struct wt_share_rec *r;

	for (; (id = rs->hash[h]); h = core_cct_next(h, rs->mask))
		if (same_key(&rs->v[id - 1], k))
			return &rs->v[id - 1];
	if (rs->n >= rs->max) {
		rs->dropped++;
		return NULL;
	}
	r = &rs->v[rs->n++];
	*r = *k;
	rs->hash[h] = rs->n;
	name_block(t, r);
	return r;
}

int wt_share_judge(struct wt_thread *t, struct wt_slot *s, const struct wt_hit *h,
		   uint32_t trap_node)
{
	uint64_t piece = (s->len >= 64 ? ~0ULL : (1ULL << s->len) - 1) << (s->addr - s->ea);
	uint64_t bytes = h->bytes ? h->bytes : piece;
	struct wt_share_rec k, *r;

	t->st.traps++;
	memset(&k, 0, sizeof(k));
	k.watch = s->watch_node;
	k.trap = trap_node;
	k.kind = bytes & s->own ? WT_TRUE_SHARING : WT_FALSE_SHARING;
	k.line = s->ea;
	span(s->own ? s->own : piece, &k.woff, &k.wlen);
	span(bytes, &k.toff, &k.tlen);
	r = record(t, &k);
	if (r) {
		r->count++;
		r->weight += s->weight;
	}
	return 0;
}
