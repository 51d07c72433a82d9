/*
 * causal_notes.h - what `witch causal` says about its --progress lines:
 * before the run, where a visit may count twice; after it, for a line
 * whose places no visit reached, the file, line and addresses it counted
 * at and the lines near it that ran. The line table is gone by then, so
 * the notes keep what they will say.
 */
#ifndef WITCH_CLI_CAUSAL_NOTES_H
#define WITCH_CLI_CAUSAL_NOTES_H

#include <stddef.h>

#include "cli/causal_lines.h"
#include "report/causal_analysis.h"
#include "report/causal_profile.h"

struct causal_note {
	char *spec;		/* as given to --progress */
	char *name;		/* the point's name in the profiles */
	char *where;		/* "0x10ad in main(), ..." */
	char *again;		/* "0x10e6 in main()" a visit may pass after its start, or NULL */
	char *near[CAUSAL_NEAR_MAX];	/* in-scope lines near it, nearest first */
	size_t nnear;
};

struct causal_notes {
	struct causal_note *n;
	size_t count;
};

/* Notes on the progress points of t, whose specs (--progress values) are
 * in order. -1 when out of memory. */
int causal_notes_take(struct causal_notes *cn, const struct causal_lines *t, char *const *specs);

/* Before the run: a warning line on stderr for each point a visit may
 * count twice at. */
void causal_notes_warn(const struct causal_notes *cn, const char *who);

/* After it: a line on stderr for each point with no visit in the
 * analysis a of profiles p; how many were said. */
size_t causal_notes_unreached(const struct causal_notes *cn, const struct rc_profile *p,
			      const struct rc_analysis *a, const char *who);

void causal_notes_free(struct causal_notes *cn);

#endif
