/*
 * compare.h - how far a sampled profile is from the exhaustive truth.
 *
 * Both sides are reduced to "sites": a pair's watch and trap contexts
 * named by source location. By default a context's site is its first frame
 * outside glibc's string and memory routines (memset, memcpy, strlen...):
 * glibc picks different variants of those natively and under valgrind
 * (AVX-512 vs AVX2), so the function that called them is what matches.
 * With full contexts, every frame counts.
 */
#ifndef WITCH_REPORT_COMPARE_H
#define WITCH_REPORT_COMPARE_H

#include <stddef.h>
#include <stdio.h>

struct wr_report;
struct wr_symbolizer;

struct wr_site_share {
	char *key;		/* "watch site => trap site" (first: compare.c sorts by it) */
	double share;		/* of all waste on its side, 0..1 */
	size_t rank;		/* 1 = most waste */
};

/* Everything judged at one watched site (the sampled access), whatever
 * the access that judged it: how much a side weighs the site, and what
 * fraction of it is waste there. */
struct wr_watched {
	char *key;		/* the watch site alone (first, as above) */
	double waste;		/* exact waste, as the profile counts it */
	double judged;		/* waste, use and approximate waste */
};

struct wr_side {
	struct wr_report *r;
	struct wr_symbolizer *s;
	struct wr_site_share *sites;	/* by share, most first */
	size_t nsites;
	struct wr_watched *watched;	/* by judged bytes, most first */
	size_t nwatched;
	double judged;		/* all of them */
	double redundancy;	/* Eq. 1, exact waste / all observed */
	char **modnames;	/* per module of r: its file's name, once known */
	unsigned char *by_offset;	/* per module of r: key its frames by code offset */
};

/* Reference pairs below this share of waste are not compared. */
#define WR_SIGNIFICANT 0.01

struct wr_comparison {
	struct wr_side a, b;	/* a: sampled, b: exhaustive (the reference) */
	size_t top;		/* b's top pairs compared: at most N, each >= 1 % */
	size_t found;		/* of those, how many a has at all */
	double spearman;	/* rank correlation over them (NaN: fewer than 2) */
	/*
	 * a's redundancy at each watched site, weighted by b's judged bytes
	 * there: what a would say if it weighed its sites as b does. Near
	 * b's redundancy, a judges each site right and the difference is how
	 * often a sampled each site (timer samples follow time, not counts).
	 * Over the sites both have, which hold `coverage` of b's judged
	 * bytes; NaN when none. b's own redundancy over those same sites is
	 * `reweighted_reference`: reweighted minus it is what a's verdicts
	 * get wrong, while the rest of the difference from b's whole
	 * redundancy comes from the sites a never watched.
	 */
	double reweighted;
	double reweighted_reference;
	double coverage;
};

/*
 * Before the sites: a module that has DWARF on one side and none on the
 * other (a binary rebuilt without -g) has frames with source lines on
 * one side only. Its frames are then keyed by function and code offset
 * on both sides, which match: -g does not change the code, and a
 * function has the same name from DWARF and from the symbol table
 * (names.h); its inlined frames, which only DWARF shows, are left out.
 * Returns 0, or -1 when out of memory.
 */
int wr_sides_agree(struct wr_side *a, struct wr_side *b);

/* Reduce one loaded report to sites. Returns 0, or -1 when out of memory. */
int wr_side_sites(struct wr_side *side, int full_contexts);
void wr_side_free(struct wr_side *side);

/* The site b's i-th site has in a, or NULL. */
const struct wr_site_share *wr_compare_find(const struct wr_side *a, const char *key);
const struct wr_watched *wr_compare_find_watched(const struct wr_side *a, const char *key);

/* Fill found and spearman for the top N of b. */
void wr_compare(struct wr_comparison *c, size_t top);

void wr_render_compare_text(FILE *out, const struct wr_comparison *c);
void wr_render_compare_json(FILE *out, const struct wr_comparison *c);

#endif
