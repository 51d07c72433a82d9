/*
 * cct.c - the runtime's calling context trees (cct.h), hashed as the
 * core hashes them (core/cct.h).
 */
#include <string.h>
#include <sys/mman.h>

#include "core/cct.h"
#include "runtime/cct.h"

#define NO_NODE CORE_NO_ID

static void *reserve(size_t bytes)
{
	/* Reserved, not committed: only pages we touch count towards RSS. */
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static uint32_t *hash_alloc(struct wt_cct *c, uint32_t slots)
{
	size_t bytes = (size_t)slots * sizeof(uint32_t);
	uint32_t *h;

	if (c->hash_used + bytes > c->hash_size)
		return NULL;
	h = (uint32_t *)(c->hash_arena + c->hash_used);
	c->hash_used += bytes;
	memset(h, 0xff, bytes);
	return h;
}

int wt_cct_init(struct wt_cct *c, uint32_t maxnodes, uint32_t maxpairs)
{
	memset(c, 0, sizeof(*c));
	c->maxnodes = maxnodes;
	c->maxpairs = maxpairs;
	c->nodes = reserve((size_t)maxnodes * sizeof(*c->nodes));
	c->pairs = reserve((size_t)maxpairs * sizeof(*c->pairs));
	/* Tables double while under half full: their sum stays below 4x the final one. */
	c->hash_size = 4 * 2 * ((size_t)maxnodes + maxpairs) * sizeof(uint32_t);
	c->hash_arena = reserve(c->hash_size);
	if (!c->nodes || !c->pairs || !c->hash_arena) {
		wt_cct_release(c);
		return -1;
	}
	c->node_hash = hash_alloc(c, 1024);
	c->node_hash_mask = 1023;
	c->pair_hash = hash_alloc(c, 1024);
	c->pair_hash_mask = 1023;
	c->nodes[0].parent = NO_NODE;
	c->nnodes = 1;
	return 0;
}

void wt_cct_release(struct wt_cct *c)
{
	if (c->nodes)
		munmap(c->nodes, (size_t)c->maxnodes * sizeof(*c->nodes));
	if (c->pairs)
		munmap(c->pairs, (size_t)c->maxpairs * sizeof(*c->pairs));
	if (c->hash_arena)
		munmap(c->hash_arena, c->hash_size);
	memset(c, 0, sizeof(*c));
}

static uint64_t node_key_hash(const struct wt_cct *c, uint32_t id)
{
	return core_cct_hash(c->nodes[id].parent, c->nodes[id].pc);
}

static uint64_t pair_key_hash(const struct wt_cct *c, uint32_t id)
{
	return core_cct_hash(c->pairs[id].watch, c->pairs[id].trap);
}

/* Double an open-addressing table of ids; returns 0 or -1 when out of room. */
static int grow(struct wt_cct *c, uint32_t **table, uint32_t *mask, uint32_t count,
		uint64_t (*hash)(const struct wt_cct *, uint32_t))
{
	uint32_t nmask = *mask * 2 + 1, i;
	uint32_t *t = hash_alloc(c, nmask + 1);

	if (!t)
		return -1;
	for (i = 0; i < count; i++)
		core_cct_place(t, nmask, hash(c, i), i);
	*table = t;
	*mask = nmask;
	return 0;
}

static uint32_t child(struct wt_cct *c, uint32_t parent, uintptr_t pc)
{
	uint32_t h;
	uint32_t id;

	if (core_cct_full(c->nnodes, c->node_hash_mask) &&
	    grow(c, &c->node_hash, &c->node_hash_mask, c->nnodes, node_key_hash) < 0)
		return NO_NODE;
	for (h = core_cct_hash(parent, pc) & c->node_hash_mask; (id = c->node_hash[h]) != NO_NODE;
	     h = core_cct_next(h, c->node_hash_mask))
		if (c->nodes[id].parent == parent && c->nodes[id].pc == pc)
			return id;
	if (c->nnodes >= c->maxnodes)
		return NO_NODE;
	id = c->nnodes++;
	memset(&c->nodes[id], 0, sizeof(c->nodes[id]));
	c->nodes[id].parent = parent;
	c->nodes[id].pc = pc;
	c->node_hash[h] = id;
	return id;
}

uint32_t wt_cct_path(struct wt_cct *c, const uintptr_t *pcs, int n)
{
	uint32_t node = 0;
	int i;

	for (i = n - 1; i >= 0; i--) {
		uint32_t next = child(c, node, pcs[i]);

		if (next == NO_NODE) {
			c->nodes_dropped++;
			return 0;
		}
		node = next;
	}
	return node;
}

uint32_t wt_cct_child(struct wt_cct *c, uint32_t parent, uintptr_t pc)
{
	uint32_t id = child(c, parent, pc);

	if (id != NO_NODE)
		return id;
	c->nodes_dropped++;
	return 0;
}

struct wt_pair *wt_cct_pair(struct wt_cct *c, uint32_t watch, uint32_t trap)
{
	uint32_t h;
	uint32_t id;
	struct wt_pair *p;

	if (core_cct_full(c->npairs, c->pair_hash_mask) &&
	    grow(c, &c->pair_hash, &c->pair_hash_mask, c->npairs, pair_key_hash) < 0) {
		c->pairs_dropped++;
		return NULL;
	}
	for (h = core_cct_hash(watch, trap) & c->pair_hash_mask; (id = c->pair_hash[h]) != NO_NODE;
	     h = core_cct_next(h, c->pair_hash_mask))
		if (c->pairs[id].watch == watch && c->pairs[id].trap == trap)
			return &c->pairs[id];
	if (c->npairs >= c->maxpairs) {
		c->pairs_dropped++;
		return NULL;
	}
	id = c->npairs++;
	p = &c->pairs[id];
	memset(p, 0, sizeof(*p));
	p->watch = watch;
	p->trap = trap;
	c->pair_hash[h] = id;
	return p;
}

void wt_attrib_sampled(struct wt_cct_node *n)
{
	n->mu++;
}

void wt_attrib_armed(struct wt_cct_node *n)
{
	n->n_active++;
}

void wt_attrib_abandoned(struct wt_cct_node *n)
{
	if (n->n_active)
		n->n_active--;
}

double wt_attrib_take(struct wt_cct_node *n)
{
	/*
	 * The trapping watchpoint stands for every sample taken in its
	 * context since the last trap there (mu - eta), shared equally with
	 * the other watchpoints still armed from the same context.
	 */
	unsigned active = n->n_active ? n->n_active : 1;
	double w = ((double)n->mu - n->eta) / active;

	if (w < 0)
		w = 0;
	n->eta += w;
	wt_attrib_abandoned(n);
	return w;
}

/*
 * The samples a context took after its last trap have no trap to stand
 * for them when the profile is written. They are spread over the traps it
 * had, in proportion (the factor its pairs are scaled by): a context whose
 * watches rarely trap (the next access is far away) would otherwise lose
 * most of its samples, and its verdicts would count for less than those
 * of contexts whose watches trap at once.
 */
double wt_attrib_remainder(const struct wt_cct_node *n)
{
	return n->eta > 0 && n->mu > n->eta ? (double)n->mu / n->eta : 1.0;
}
