/*
 * craft.c - the clients of the engine (WITCH §4, §6): what they sample and
 * how a trap is judged.
 *
 *   DeadCraft   samples stores; RW watch; a store next is waste, a load
 *               (or read-modify-write) next is use.
 *   SilentCraft samples stores; W watch; the next store writing the bytes
 *               that are already there is waste, else use.
 *   LoadCraft   samples loads; RW watch; stores in between are ignored; the
 *               next load reading the same bytes is waste, else use.
 *   share       samples stores, which other threads watch (share.c).
 *
 * Floating-point data (from the decoded instruction) also compare within a
 * relative tolerance: equal only approximately is counted apart, as
 * approximate waste.
 */
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "runtime/hit.h"
#include "runtime/share.h"
#include "runtime/valuecmp.h"
#include "runtime/runtime.h"

int wt_craft_wants_store(void)
{
	return wt_cfg.craft != WT_CRAFT_LOAD;
}

/*
 * Read the target's memory from a handler. The kernel does the copy, so
 * our own watchpoints (user-mode only) do not trap, and an unmapped
 * address is an error instead of a SIGSEGV.
 */
int wt_read_target(void *dst, uintptr_t src, size_t n)
{
	struct iovec local = { dst, n }, remote = { (void *)src, n };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

static size_t value_bytes(const struct wt_slot *s)
{
	return s->acc.size < sizeof(s->value) ? s->acc.size : sizeof(s->value);
}

/*
 * LoadCraft's value of a read-modify-write (add $1, mem) is what it read,
 * and once it ran memory holds what it wrote: such a sample is watched
 * from right before it runs, when its bytes are still the ones it reads.
 */
int wt_craft_reads_before(const struct wd_access *acc)
{
	return wt_cfg.craft == WT_CRAFT_LOAD && acc->kind == WD_RMW;
}

/* The sampled access is about to run (watched from before it). */
void wt_craft_before(struct wt_thread *t, struct wt_slot *s)
{
	(void)t;
	s->have_value = 0;
	s->value_before = wt_craft_reads_before(&s->acc) &&
			  wt_read_target(s->value, s->ea, value_bytes(s)) == 0;
}

/* The sampled access has executed: remember the bytes it wrote or read. */
void wt_craft_armed(struct wt_thread *t, struct wt_slot *s)
{
	(void)t;
	if (s->value_before) {
		/* Its own write is what the next read-modify-write reads. */
		s->value_before = 0;
		s->have_value = wt_read_target(s->cur, s->ea, value_bytes(s)) == 0;
		return;
	}
	s->have_value = 0;
	if (wt_cfg.craft == WT_CRAFT_DEAD)
		return;
	if (wt_read_target(s->value, s->ea, value_bytes(s)) == 0) {
		memcpy(s->cur, s->value, value_bytes(s));
		s->have_value = 1;
	}
}

/* The watched piece, as bits over the sampled access's bytes. */
static uint64_t piece_bytes(const struct wt_slot *s)
{
	unsigned at = (unsigned)(s->addr - s->ea);

	return (s->len >= 64 ? ~0ULL : (1ULL << s->len) - 1) << at;
}

/*
 * Bytes the verdict covers: the share of the watched piece that the
 * trapping access touched, applied to all the bytes the sampled access
 * accessed. A 4-byte store over half of an 8-byte store kills 4 bytes; a
 * verdict on the 8 bytes watched of a 32-byte vector store covers all 32
 * (WITCH §6.4); a masked store that wrote 5 bytes weighs 5.
 */
static double verdict_bytes(const struct wt_slot *s, uint64_t bytes)
{
	int touched = __builtin_popcountll(bytes & piece_bytes(s));

	return (double)(touched ? touched : (int)s->len) / s->len * __builtin_popcountll(s->own);
}

/* Compare over the bytes set in `bytes`, run by run: any run that
 * differs is use, else any that matches only approximately. */
static enum wt_verdict compare(const struct wt_slot *s, const uint8_t *old, const uint8_t *now,
			       uint64_t bytes)
{
	enum wt_verdict v = WT_WASTE;
	size_t n = value_bytes(s), i = 0, j;

	while (i < n) {
		if (!(bytes >> i & 1)) {
			i++;
			continue;
		}
		for (j = i; j < n && (bytes >> j & 1); j++)
			;
		switch (wt_compare_values(old, now, n, i, j - i, s->acc.dtype, wt_cfg.approx)) {
		case WT_USE:
			return WT_USE;
		case WT_APPROX:
			v = WT_APPROX;
			break;
		default:
			break;
		}
		i = j;
	}
	return v;
}

/* Can the bytes a running rep movs or stos has yet to store be told? */
static int predictable(const struct wt_hit *h)
{
	return h->acc.string_op == WD_STR_STOS || h->acc.string_op == WD_STR_MOVS;
}

/*
 * The sampled access's bytes as the trapping store leaves them: as they
 * are, but for those a rep string instruction still running has yet to
 * store, which stos fills from rax and movs copies from its source.
 */
static int bytes_after(const struct wt_slot *s, const struct wt_hit *h, uint8_t *now)
{
	size_t n = value_bytes(s), first, last, i;
	uint8_t src[sizeof(s->value)];

	if (wt_read_target(now, s->ea, n) < 0)
		return -1;
	if (!h->pending || h->kind != WD_STORE || !predictable(h))
		return 0;
	first = (size_t)__builtin_ctzll(h->pending);
	last = 63 - (size_t)__builtin_clzll(h->pending);
	if (h->acc.string_op == WD_STR_MOVS &&
	    wt_read_target(src, s->ea + first + (uintptr_t)h->copy_delta, last - first + 1) < 0)
		return -1;
	for (i = first; i <= last && i < n; i++) {
		if (!(h->pending >> i & 1))
			continue;
		now[i] = h->acc.string_op == WD_STR_STOS ? wt_hit_stos_byte(h, s->ea + i)
							  : src[i - first];
	}
	return 0;
}

static void attribute(struct wt_thread *t, struct wt_slot *s, uint32_t trap_node, double bytes,
		      enum wt_verdict v)
{
	double w = wt_attrib_take(&t->cct.nodes[s->watch_node]);
	struct wt_pair *p = wt_cct_pair(&t->cct, s->watch_node, trap_node);

	t->st.traps++;
	if (!p)
		return;
	p->count++;
	if (v == WT_WASTE)
		p->waste += w * bytes;
	else if (v == WT_APPROX)
		p->approx += w * bytes;
	else
		p->use += w * bytes;
}

/* Silent stores and silent loads: compare values over the bytes both
 * accesses accessed. */
static int judge_value(struct wt_thread *t, struct wt_slot *s, const struct wt_hit *h,
		       uint64_t bytes, uint32_t trap_node)
{
	uint8_t now[sizeof(s->value)];
	const uint8_t *seen = now;

	if (wt_cfg.craft == WT_CRAFT_LOAD && h->kind == WD_STORE) {
		/* LoadCraft ignores stores in between (§6.2), but remembers
		 * what they left, which a later read-modify-write reads. */
		bytes_after(s, h, s->cur);
		t->st.stores_ignored++;
		return 1;
	}
	if (wt_cfg.craft == WT_CRAFT_SILENT && h->kind == WD_LOAD)
		return 1;	/* a W watchpoint does not trap on loads */
	if (!s->have_value) {
		t->st.traps_unresolved++;
		return 0;
	}
	if (h->kind == WD_STORE && !predictable(h))
		bytes &= ~h->pending;	/* what ins will store: not known yet */
	if (wt_cfg.craft == WT_CRAFT_LOAD && h->kind == WD_RMW)
		seen = s->cur;	/* it read the value before its own write */
	else if (!bytes || bytes_after(s, h, now) < 0) {
		t->st.traps_unresolved++;
		return 0;
	}
	attribute(t, s, trap_node, verdict_bytes(s, bytes), compare(s, s->value, seen, bytes));
	return 0;
}

int wt_craft_judge(struct wt_thread *t, struct wt_slot *s, const struct wt_hit *h,
		   uint32_t trap_node)
{
	uint64_t bytes = h->bytes & s->own;

	if (wt_cfg.craft == WT_CRAFT_SHARE)
		return wt_share_judge(t, s, h, trap_node);
	if (!bytes)
		bytes = piece_bytes(s);
	if (wt_cfg.craft == WT_CRAFT_DEAD) {
		attribute(t, s, trap_node, verdict_bytes(s, bytes),
			  h->kind == WD_STORE ? WT_WASTE : WT_USE);
		return 0;
	}
	return judge_value(t, s, h, bytes, trap_node);
}
