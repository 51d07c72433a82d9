/*
 * craft.c - the clients of the engine (WITCH §4, §6): what they sample and
 * how a trap is judged. DeadCraft: a store after a store is waste, a load
 * (or read-modify-write) after a store is use.
 */
#include "runtime/witch.h"

int wt_craft_wants_store(void)
{
	return wt_cfg.craft != WT_CRAFT_LOAD;
}

void wt_craft_armed(struct wt_thread *t, struct wt_slot *s)
{
	(void)t;
	(void)s;
}

/* Bytes the verdict covers: the trapping access's overlap with the watched
 * part, scaled to the whole sampled access (WITCH §6.4: a verdict on the
 * watched element applies to every element of the access). */
static double verdict_bytes(const struct wt_slot *s, const struct wd_access *trap,
			    uintptr_t ea, int known)
{
	uintptr_t lo = s->addr, hi = s->addr + s->len;
	unsigned overlap = s->len;

	if (known && trap->size) {
		uintptr_t a = ea > lo ? ea : lo, b = ea + trap->size < hi ? ea + trap->size : hi;

		if (b > a)
			overlap = (unsigned)(b - a);
	}
	return (double)overlap * s->acc.size / s->len;
}

static void attribute(struct wt_thread *t, struct wt_slot *s, uint32_t trap_node,
		      double bytes, int waste)
{
	double w = wt_attrib_take(&t->cct.nodes[s->watch_node]);
	struct wt_pair *p = wt_cct_pair(&t->cct, s->watch_node, trap_node);

	t->st.traps++;
	if (!p)
		return;
	p->count++;
	if (waste)
		p->waste += w * bytes;
	else
		p->use += w * bytes;
}

int wt_craft_judge(struct wt_thread *t, struct wt_slot *s, const struct wd_access *trap,
		   uintptr_t ea, int known, uint32_t trap_node)
{
	double bytes = verdict_bytes(s, trap, ea, known);

	switch (wt_cfg.craft) {
	case WT_CRAFT_DEAD:
	default:
		attribute(t, s, trap_node, bytes, trap->kind == WD_STORE);
		return 0;
	}
}
