/*
 * cct.h - per-thread calling context tree and context-pair table, in memory
 * reserved once (mmap) and filled without malloc, so signal handlers can
 * insert. Nodes are (parent, pc); node 0 is the root.
 *
 * Each node also carries WITCH's proportional-attribution counters (§4.2):
 * mu (samples taken in this context), eta (samples already accounted for by
 * a trap) and the number of watchpoints currently armed from it.
 */
#ifndef WITCH_CCT_H
#define WITCH_CCT_H

#include <stddef.h>
#include <stdint.h>

struct wt_cct_node {
	uintptr_t pc;
	uint32_t parent;
	uint32_t n_active;	/* watchpoints armed from this context */
	uint32_t mu;		/* samples taken here */
	uint32_t pad;
	double eta;		/* samples already represented by traps */
	uint64_t ns;		/* samples only (witch cpi): CPU time its samples stood for */
};

struct wt_pair {
	uint32_t watch, trap;	/* node ids */
	uint32_t count;		/* traps that contributed */
	uint32_t pad;
	double waste, use;	/* sample-weighted bytes */
	double approx;		/* waste only within the floating-point tolerance */
};

struct wt_cct {
	struct wt_cct_node *nodes;
	uint32_t nnodes, maxnodes;
	struct wt_pair *pairs;
	uint32_t npairs, maxpairs;
	uint32_t *node_hash, node_hash_mask;
	uint32_t *pair_hash, pair_hash_mask;
	char *hash_arena;		/* bump area for hash tables as they grow */
	size_t hash_used, hash_size;
	uint64_t nodes_dropped, pairs_dropped, frames_truncated;
};

/* Reserve memory (outside handlers). Returns 0 or -1. */
int wt_cct_init(struct wt_cct *c, uint32_t maxnodes, uint32_t maxpairs);
void wt_cct_release(struct wt_cct *c);

/* Node for the path given leaf first (pcs[0] is the accessing instruction).
 * Returns 0 (the root) if the tree is full. */
uint32_t wt_cct_path(struct wt_cct *c, const uintptr_t *pcs, int n);

/* The child of `parent` for pc, created if needed; 0 if the tree is full. */
uint32_t wt_cct_child(struct wt_cct *c, uint32_t parent, uintptr_t pc);

/* The pair (watch, trap), created if needed; NULL if the table is full. */
struct wt_pair *wt_cct_pair(struct wt_cct *c, uint32_t watch, uint32_t trap);

/* Proportional attribution, WITCH §4.2. */
void wt_attrib_sampled(struct wt_cct_node *n);
void wt_attrib_armed(struct wt_cct_node *n);
void wt_attrib_abandoned(struct wt_cct_node *n);	/* replaced without a trap */
double wt_attrib_take(struct wt_cct_node *n);		/* a trap: samples it stands for */
double wt_attrib_remainder(const struct wt_cct_node *n);	/* at the end: mu / eta */

#endif
