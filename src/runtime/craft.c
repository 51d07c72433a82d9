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
 *
 * Floating-point data (from the decoded instruction) also compare within a
 * relative tolerance: equal only approximately is counted apart, as
 * approximate waste.
 */
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

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

/* The part of the sampled access that the trapping access touched. */
static void overlap(const struct wt_slot *s, const struct wd_access *trap, uintptr_t ea,
		    int known, uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t a = s->ea, b = s->ea + value_bytes(s);

	if (!known || !trap->size) {
		/* Only the watched piece is sure to have been touched. */
		*lo = s->addr;
		*hi = s->addr + s->len;
		return;
	}
	*lo = ea > a ? ea : a;
	*hi = ea + trap->size < b ? ea + trap->size : b;
	if (*hi <= *lo) {
		*lo = s->addr;
		*hi = s->addr + s->len;
	}
}

/*
 * Bytes the verdict covers: the share of the watched piece that the
 * trapping access touched, applied to the whole sampled access. A 4-byte
 * store over half of an 8-byte store kills 4 bytes; a verdict on the 8
 * bytes watched of a 32-byte vector store covers all 32 (WITCH §6.4).
 */
static double verdict_bytes(const struct wt_slot *s, uintptr_t lo, uintptr_t hi)
{
	uintptr_t a = lo > s->addr ? lo : s->addr;
	uintptr_t b = hi < s->addr + s->len ? hi : s->addr + s->len;
	double touched = b > a ? (double)(b - a) : (double)s->len;

	return touched / s->len * s->acc.size;
}

/* Compare over [lo, hi), addresses inside the sampled access. */
static enum wt_verdict compare(const struct wt_slot *s, const uint8_t *old, const uint8_t *now,
			       uintptr_t lo, uintptr_t hi)
{
	return wt_compare_values(old, now, value_bytes(s), lo - s->ea, hi - lo, s->acc.dtype,
				 wt_cfg.approx);
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

/* Silent stores and silent loads: compare values over the overlap. */
static int judge_value(struct wt_thread *t, struct wt_slot *s, const struct wd_access *trap,
		       uintptr_t lo, uintptr_t hi, uint32_t trap_node)
{
	uint8_t now[sizeof(s->value)];
	const uint8_t *seen = now;

	if (wt_cfg.craft == WT_CRAFT_LOAD && trap->kind == WD_STORE) {
		/* LoadCraft ignores stores in between (§6.2), but remembers
		 * what they left, which a later read-modify-write reads. */
		wt_read_target(s->cur, s->ea, value_bytes(s));
		t->st.stores_ignored++;
		return 1;
	}
	if (wt_cfg.craft == WT_CRAFT_SILENT && trap->kind == WD_LOAD)
		return 1;	/* a W watchpoint does not trap on loads */
	if (!s->have_value) {
		t->st.traps_unresolved++;
		return 0;
	}
	if (wt_cfg.craft == WT_CRAFT_LOAD && trap->kind == WD_RMW)
		seen = s->cur;	/* it read the value before its own write */
	else if (wt_read_target(now, s->ea, value_bytes(s)) < 0) {
		t->st.traps_unresolved++;
		return 0;
	}
	attribute(t, s, trap_node, verdict_bytes(s, lo, hi), compare(s, s->value, seen, lo, hi));
	return 0;
}

int wt_craft_judge(struct wt_thread *t, struct wt_slot *s, const struct wd_access *trap,
		   uintptr_t ea, int known, uint32_t trap_node)
{
	uintptr_t lo, hi;

	overlap(s, trap, ea, known, &lo, &hi);
	if (wt_cfg.craft == WT_CRAFT_DEAD) {
		attribute(t, s, trap_node, verdict_bytes(s, lo, hi),
			  trap->kind == WD_STORE ? WT_WASTE : WT_USE);
		return 0;
	}
	return judge_value(t, s, trap, lo, hi, trap_node);
}
