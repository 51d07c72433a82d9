/*
 * reservoir.h - WITCH §4.1: which debug register a new sample goes to.
 *
 * With N registers, the k-th sample since a register was last free replaces
 * one of the N watched samples with probability N/k, so every sample of that
 * window is equally likely (N/k) to be watched. A trap that frees a register
 * restarts the window.
 */
#ifndef WITCH_RESERVOIR_H
#define WITCH_RESERVOIR_H

#include <stdint.h>

struct wt_reservoir {
	unsigned nslots;	/* N */
	uint64_t k;		/* samples in the current window */
};

void wt_reservoir_init(struct wt_reservoir *r, unsigned nslots);

/*
 * A new sample arrives; `occupied` has bit i set when slot i is in use and
 * `rnd` is a uniform random number. Returns the slot to (re)use, or -1 to
 * drop the sample.
 */
int wt_reservoir_choose(struct wt_reservoir *r, unsigned occupied, uint64_t rnd);

/* A slot was freed (its watchpoint trapped); `occupied` is the mask after. */
void wt_reservoir_freed(struct wt_reservoir *r, unsigned occupied);

#endif
