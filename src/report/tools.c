/*
 * tools.c - the table behind tools.h.
 */
#include "report/tools.h"

#include <string.h>

#define DEAD	.what = "dead stores", .relation = "KILLED_BY", \
		.fraction = "dead fraction", .access = "store", \
		.accessed = "stored"
#define SILENT	.what = "silent stores", .relation = "REDUNDANTLY_WRITTEN_BY", \
		.fraction = "silent fraction", .access = "store", \
		.accessed = "stored"
#define LOAD	.what = "redundant loads", .relation = "REDUNDANTLY_LOADED_BY", \
		.fraction = "redundant-load fraction", .access = "load", \
		.accessed = "loaded"

static const struct wr_tool tools[] = {
	{ .name = "dead", .method = "DeadCraft", DEAD },
	{ .name = "silent", .method = "SilentCraft", SILENT },
	{ .name = "load", .method = "LoadCraft", LOAD },
	{ .name = "deadspy", .method = "DeadSpy, exhaustive", DEAD,
	  .exhaustive = 1 },
	{ .name = "redspy", .method = "RedSpy, exhaustive", SILENT,
	  .exhaustive = 1 },
	{ .name = "loadspy", .method = "LoadSpy, exhaustive", LOAD,
	  .exhaustive = 1 },
	/* Run-time value numbering: instructions that compute, load or store
	 * again what an earlier instruction did. */
	{ .name = "rvn", .what = "redundant computation", .method = "RVN, exhaustive",
	  .relation = "REDUNDANT_WITH", .fraction = "redundancy", .access = "instruction",
	  .accessed = "executed", .exhaustive = 1, .counts_executions = 1 },
	/* Loops whose iterations re-read what earlier iterations read
	 * (Prometheus's read sets): report/loop.h reports them. */
	{ .name = "loop", .what = "loops that re-read", .method = "read sets, exhaustive",
	  .access = "load", .accessed = "loaded", .exhaustive = 1 },
	/* Cache lines threads share (Feather, on WITCH's engine): report/share.h
	 * reports them; the relation is the pair's kind's. */
	{ .name = "share", .what = "cache lines shared between threads",
	  .method = "Feather, watchpoints across threads", .access = "store",
	  .accessed = "stored" },
	/* witch cpi's two runs (report/cpi.h reports them). */
	{ .name = "time", .what = "time per execution", .method = "witch cpi, sampled run",
	  .access = "instruction", .accessed = "executed" },
	{ .name = "count", .what = "time per execution", .method = "witch cpi, counting run",
	  .access = "instruction", .accessed = "executed", .exhaustive = 1 },
};

const struct wr_tool *wr_tool_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (!strcmp(tools[i].name, name))
			return &tools[i];
	return NULL;
}
