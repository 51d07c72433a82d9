/*
 * tools.h - the words the report uses for each tool, in one place.
 *
 * A sampled craft and its exhaustive spy measure the same thing, so they
 * share their words; only the method differs.
 */
#ifndef WITCH_REPORT_TOOLS_H
#define WITCH_REPORT_TOOLS_H

struct wr_tool {
	const char *name;	/* as in the profile: "dead", "deadspy", ... */
	const char *what;	/* "dead stores" */
	const char *method;	/* "DeadCraft", "DeadSpy, exhaustive" */
	const char *relation;	/* "KILLED_BY": watch RELATION trap */
	const char *fraction;	/* "dead fraction" */
	const char *access;	/* "store": the kind of access measured */
	const char *accessed;	/* "stored" */
	int exhaustive;		/* counts every access rather than samples */
	int counts_executions;	/* pairs count redundant executions, not bytes */
};

/* The entry for a profile's tool name, or NULL when unknown. */
const struct wr_tool *wr_tool_find(const char *name);

#endif
