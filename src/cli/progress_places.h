/*
 * progress_places.h - where the visits of a source line start: the
 * addresses `witch causal --progress=FILE:LINE` counts, chosen from the
 * line table's statement rows and the control flow of the functions that
 * hold the line's code (docs/causal.md, "Which addresses --progress
 * counts").
 */
#ifndef WITCH_CLI_PROGRESS_PLACES_H
#define WITCH_CLI_PROGRESS_PLACES_H

#include <stddef.h>
#include <stdint.h>

#include "cli/causal_lines.h"

struct progress_place {
	uint64_t addr;		/* link-time */
	uint32_t function;	/* into names: the function (inlined or not) it is in; UINT32_MAX: unknown */
};

struct progress_places {
	struct progress_place *p;	/* by address */
	size_t n;
	/* A place that a visit begun at another may pass too (0: none):
	 * such visits count twice. */
	uint64_t again;
};

/*
 * The places of line `line` of file `file` (ids into names) in module m:
 * each visit of the line passes exactly one of them once. n is 0 when the
 * line has no code in a function of m. -1 with the reason in err.
 */
int progress_places_find(const struct causal_module *m, struct rc_strtab *names, uint32_t file,
			 uint32_t line, struct progress_places *out, char *err, size_t errlen);

void progress_places_free(struct progress_places *pp);

#endif
