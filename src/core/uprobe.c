/*
 * uprobe.c - a uprobe in counting mode: the kernel puts an int3 on the
 * instruction, counts each execution and resumes, with no signal to the
 * process. It works where hardware breakpoints open but never fire (some
 * hypervisors never deliver debug traps), costs a software trap per visit,
 * and needs root or CAP_PERFMON.
 *
 * A uprobe belongs to a file, not to an address: the kernel wants the
 * path of the mapped ELF file and the instruction's offset in it, which
 * the mapping holding the run-time address tells. Not for signal handlers
 * (stdio).
 */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/perf.h"
#include "core/uprobe.h"

int core_uprobe_type(void)
{
	return core_perf_pmu_type(NULL, "uprobe");
}

/* A mapping line: "lo-hi perms pgoff dev inode   path". */
static int mapping_of(const char *line, uintptr_t addr, uint64_t *off, const char **path)
{
	unsigned long lo, hi, pgoff;
	int n = 0;

	if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &lo, &hi, &pgoff, &n) < 3 || !n ||
	    addr < lo || addr >= hi)
		return 0;
	*off = addr - lo + pgoff;
	*path = line + n;
	return 1;
}

int core_file_offset(uintptr_t addr, char *path, size_t cap, uint64_t *off)
{
	static const char deleted[] = " (deleted)";
	char line[PATH_MAX + 256];
	const char *p = NULL;
	FILE *f = fopen("/proc/self/maps", "re");
	size_t len;

	while (f && fgets(line, sizeof(line), f) && !mapping_of(line, addr, off, &p))
		;
	if (f)
		fclose(f);
	len = p ? strcspn(p, "\n") : 0;
	/* Anonymous memory (JIT code) has no file; a replaced file's path now
	 * names another one, whose instruction at that offset is not ours. */
	if (!p || *p != '/' || len >= cap ||
	    (len >= sizeof(deleted) - 1 && !memcmp(p + len - (sizeof(deleted) - 1), deleted,
						   sizeof(deleted) - 1))) {
		errno = ENOENT;
		return -1;
	}
	memcpy(path, p, len);
	path[len] = 0;
	return 0;
}

int core_uprobe_open(uintptr_t addr, char *path, size_t cap)
{
	struct perf_event_attr a;
	uint64_t off;
	int type = core_uprobe_type();

	if (type < 0) {
		errno = ENODEV;
		return -1;
	}
	if (core_file_offset(addr, path, cap, &off) < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.type = (uint32_t)type;
	a.size = sizeof(a);
	a.config1 = (uint64_t)(uintptr_t)path;	/* read again by each inheriting clone */
	a.config2 = off;
	a.inherit = 1;
	a.inherit_thread = 1;	/* threads, not forked processes (they open their own) */
	return core_perf_open(&a);
}
