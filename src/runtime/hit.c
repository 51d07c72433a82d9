/*
 * hit.c - which bytes of a sampled access the trapping instruction
 * accessed (see hit.h). Async-signal-safe: decoding and arithmetic on
 * the trap's context.
 */
#include <string.h>

#include "runtime/hit.h"
#include "runtime/xstate.h"

#define EFLAGS_DF (1u << 10)	/* string instructions walk down */

/* What plain_touch learnt of an access's bytes. */
enum touch {
	TOUCH_EXACT,		/* its bytes, from its address (and mask) */
	TOUCH_UNSURE,		/* its address is not known, or misses the watch:
				   the watched piece alone is sure */
	TOUCH_MASKED_OFF,	/* its mask kept it off the watched piece */
};

static uint64_t ones(uintptr_t n)
{
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

uint64_t wt_hit_range(const struct wt_watched *w, uintptr_t a, uintptr_t z)
{
	uintptr_t end = w->base + w->size;
	uintptr_t lo = a > w->base ? a : w->base, hi = z < end ? z : end;

	return hi > lo ? ones(hi - lo) << (lo - w->base) : 0;
}

static uint64_t piece(const struct wt_watched *w)
{
	return wt_hit_range(w, w->lo, w->lo + w->len);
}

/* The bytes of [ea, ea + acc->size) that mask m selects, over w's bytes. */
static uint64_t selected(const struct wd_access *acc, uint64_t m, uintptr_t ea,
			 const struct wt_watched *w)
{
	unsigned esize = acc->mask_esize, n = acc->size / esize, i;
	uint64_t out = 0;

	m &= ones(n);
	if (acc->flags & WD_COMPRESS)	/* the selected elements, packed */
		return wt_hit_range(w, ea, ea + (uintptr_t)__builtin_popcountll(m) * esize);
	for (i = 0; i < n; i++)
		if (m >> i & 1)
			out |= wt_hit_range(w, ea + (uintptr_t)i * esize,
					    ea + (uintptr_t)(i + 1) * esize);
	return out;
}

uint64_t wt_hit_own_bytes(const struct wd_access *acc, const ucontext_t *uc)
{
	struct wt_watched w = { .base = 0, .size = acc->size < 64 ? acc->size : 64 };
	uint64_t m;

	if (acc->mask_reg && uc && wx_opmask(uc, acc->mask_reg, &m))
		return selected(acc, m, 0, &w);
	return ones(w.size);
}

/* The address an access that has just run accessed, from the registers
 * after it, when they still give it. */
static uintptr_t address_after(const struct wd_access *a, const ucontext_t *uc,
			       const struct wt_watched *w, int *known)
{
	*known = 0;
	if (a->flags & (WD_STRING | WD_VSIB | WD_WRITES_ADDR_REG))
		return 0;
	if (a->flags & WD_IMPLICIT) {
		/* push and call: the stack pointer now points at what they wrote. */
		if (a->kind != WD_STORE)
			return 0;
		*known = 1;
		return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	}
	*known = 1;
	return wd_effective_address(a, uc, w->fs_base, w->gs_base);
}

static enum touch plain_touch(const struct wd_access *acc, const ucontext_t *uc, uintptr_t ea,
			      int known, const struct wt_watched *w, struct wt_hit *h)
{
	uint64_t span, m;

	memset(h, 0, sizeof(*h));
	h->acc = *acc;
	h->kind = acc->kind;
	h->bytes = piece(w);
	if (!known || !acc->size)
		return TOUCH_UNSURE;
	span = wt_hit_range(w, ea, ea + acc->size);
	if (!(span & piece(w)))
		return TOUCH_UNSURE;
	if (acc->mask_reg && wx_opmask(uc, acc->mask_reg, &m)) {
		span = selected(acc, m, ea, w);
		if (!(span & piece(w)))
			return TOUCH_MASKED_OFF;
	}
	h->bytes = span;
	return TOUCH_EXACT;
}

static enum wt_hit_result result(enum touch t)
{
	return t == TOUCH_MASKED_OFF ? WT_HIT_MASKED_OFF : WT_HIT;
}

enum wt_hit_result wt_hit_plain(const struct wd_access *acc, const ucontext_t *uc, uintptr_t ea,
				int known, const struct wt_watched *w, struct wt_hit *h)
{
	return result(plain_touch(acc, uc, ea, known, w, h));
}

/* plain_touch for an access that has just run, its address from uc. */
static enum touch after_touch(const struct wd_access *acc, const ucontext_t *uc,
			      const struct wt_watched *w, struct wt_hit *h)
{
	int known;
	uintptr_t ea = address_after(acc, uc, w, &known);

	return plain_touch(acc, uc, ea, known, w, h);
}

/* a + k * size, at most `limit` (no wrap). */
static uintptr_t advance(uintptr_t a, uint64_t k, unsigned size, uintptr_t limit)
{
	return k > (limit - a) / size ? limit : a + (uintptr_t)k * size;
}

/* a - k * size, at least 0. */
static uintptr_t retreat(uintptr_t a, uint64_t k, unsigned size)
{
	return k > a / size ? 0 : a - (uintptr_t)k * size;
}

/* rcx, or ecx with a 32-bit address size: the iterations left. */
static uint64_t count_register(const struct wd_access *x, const ucontext_t *uc)
{
	uint64_t rcx = (uint64_t)uc->uc_mcontext.gregs[REG_RCX];

	return x->addr_bytes == 4 ? (uint32_t)rcx : rcx;
}

/*
 * String instruction x, with registers uc: still running (RIP on it,
 * `left` iterations to go) or done. Side by side, the bytes of w that a
 * side has accessed lie behind its pointer: for a rep prefix anywhere
 * from the watched bytes it reached up to the pointer (how far back it
 * started is not known, and fast strings report it after a whole group),
 * without one the one element before it. The iterations left are ahead.
 * Of the sides that reached the watched piece, the one whose pointer is
 * nearest: both move by the same count.
 */
static int string_hit(const struct wd_access *x, const ucontext_t *uc, int running,
		      const struct wt_watched *w, struct wt_hit *h)
{
	const greg_t *g = uc->uc_mcontext.gregs;
	int down = (g[REG_EFL] & EFLAGS_DF) != 0, n, i, found = 0;
	uint64_t rcx = count_register(x, uc), left = 0, want = piece(w);
	struct wd_string_side side[2];
	uintptr_t best = 0;
	unsigned size = x->size;

	if (!size || (running && !rcx))
		return 0;
	/* repe/repne scas and cmps may stop at any element. */
	if (running && x->string_op != WD_STR_SCAS && x->string_op != WD_STR_CMPS)
		left = rcx;
	n = wd_string_sides(x, side);
	for (i = 0; i < n; i++) {
		uintptr_t ptr = (uintptr_t)g[side[i].reg], dist;
		uint64_t done, pend, reached;

		if (side[i].kind == WD_LOAD && w->writes_only)
			continue;
		if (x->addr_bytes == 4)
			ptr = (uint32_t)ptr;
		if (!down) {
			reached = wt_hit_range(w, x->rep ? 0 : ptr - size, ptr) & want;
			if (!reached)
				continue;
			done = wt_hit_range(w, w->base + (unsigned)__builtin_ctzll(reached), ptr);
			pend = left ? wt_hit_range(w, ptr, advance(ptr, left, size, UINTPTR_MAX)) : 0;
			dist = ptr - w->lo;
		} else {
			reached = wt_hit_range(w, ptr + size,
					       x->rep ? UINTPTR_MAX : ptr + 2 * (uintptr_t)size) & want;
			if (!reached)
				continue;
			done = wt_hit_range(w, ptr + size,
					    w->base + 64 - (unsigned)__builtin_clzll(reached));
			pend = left ? wt_hit_range(w, retreat(ptr, left - 1, size), ptr + size) : 0;
			dist = w->lo + w->len - ptr;
		}
		if (found && dist >= best)
			continue;
		found = 1;
		best = dist;
		memset(h, 0, sizeof(*h));
		h->acc = *x;
		h->kind = side[i].kind;
		h->bytes = done | pend;
		h->pending = pend & ~done;
		h->rdi = (uintptr_t)g[REG_RDI];
		h->rax = (uint64_t)g[REG_RAX];
		h->copy_delta = (intptr_t)(g[REG_RSI] - g[REG_RDI]);
	}
	return found;
}

uint8_t wt_hit_stos_byte(const struct wt_hit *h, uintptr_t a)
{
	unsigned at = (unsigned)((a - h->rdi) & (uintptr_t)(h->acc.size - 1));

	return (uint8_t)(h->rax >> (8 * at));
}

/*
 * RIP on a rep string instruction x: either it ran iterations and the
 * trap interrupted it, or the instruction before it, p, trapped and x has
 * not started. p, when its address (from registers that are then still
 * its own) shows it touched the watched bytes; else x, when the watched
 * bytes lie where x has been; else p as it is. When both touched them
 * (p stores a word that x then copies), p's trap came first: the watch
 * saw the thread here with more iterations to go (a trap on p that kept
 * the watch, or the watch armed right after p) only if x has run since.
 */
static enum wt_hit_result at_string(const struct wd_access *x, const struct wd_access *p,
				    int have_p, const ucontext_t *uc,
				    const struct wt_watched *w, struct wt_hit *h)
{
	uintptr_t rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	int going_on = w->last_rip == rip && count_register(x, uc) < w->last_rcx;
	enum touch t = TOUCH_UNSURE;
	struct wt_hit by_x;
	int reached = string_hit(x, uc, 1, w, &by_x);

	if (have_p) {
		t = after_touch(p, uc, w, h);
		if (t == TOUCH_EXACT && !(reached && going_on))
			return WT_HIT;
	}
	if (reached) {
		*h = by_x;
		return WT_HIT;
	}
	return have_p ? result(t) : WT_HIT_UNKNOWN;
}

enum wt_hit_result wt_hit_find(struct wd_pc_cache *c, const ucontext_t *uc, uintptr_t start,
			       uintptr_t end, const struct wt_watched *w, struct wt_hit *h)
{
	uintptr_t rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	struct wd_access x, p;
	int have_p = start && wd_precise_access(c, start, rip, end, &p);

	if (rip < end && wd_decode((const uint8_t *)rip, end - rip, rip, &x) &&
	    (x.flags & WD_STRING) && x.rep)
		return at_string(&x, &p, have_p, uc, w, h);
	if (!have_p)
		return WT_HIT_UNKNOWN;
	if ((p.flags & WD_STRING) && string_hit(&p, uc, 0, w, h))
		return WT_HIT;
	return result(after_touch(&p, uc, w, h));
}
