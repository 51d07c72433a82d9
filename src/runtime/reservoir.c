#include "runtime/reservoir.h"

void wt_reservoir_init(struct wt_reservoir *r, unsigned nslots)
{
	r->nslots = nslots;
	r->k = 0;
}

int wt_reservoir_choose(struct wt_reservoir *r, unsigned occupied, uint64_t rnd)
{
	uint64_t j;
	unsigned i;

	r->k++;
	for (i = 0; i < r->nslots; i++)
		if (!(occupied & (1u << i)))
			return (int)i;
	/*
	 * All full: j is uniform in [0, k). Keeping the sample with
	 * probability N/k and evicting a uniformly chosen slot are the same
	 * draw: j < N happens with probability N/k and is then uniform over
	 * the N slots.
	 */
	j = rnd % r->k;
	return j < r->nslots ? (int)j : -1;
}

void wt_reservoir_freed(struct wt_reservoir *r, unsigned occupied)
{
	/*
	 * The surviving watchpoints become the first members of a new window,
	 * so the next sample goes to the free register with probability 1.
	 */
	r->k = (uint64_t)__builtin_popcount(occupied);
}
