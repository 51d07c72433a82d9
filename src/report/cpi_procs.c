/*
 * cpi_procs.c - a run's processes and threads, from its profiles, counted
 * alike for witch cpi's two runs.
 *
 * A process leaves a profile for each program it runs: one before exec
 * and one after. The two runs do not leave the same: natively a child
 * that a shell starts with vfork runs no code of its own before exec
 * (the runtime sees no fork and writes nothing for it), while Valgrind
 * runs vfork as fork, so the counting run has a profile of the shell
 * child too. Counting profiles would then say the runs differ when they
 * do not; a process is a pid, and its thread that execs goes on in the
 * next program, so it counts once.
 */
#include "report/cpi.h"
#include "profile/reader.h"

void cpi_procs_free(struct cpi_procs *r)
{
	wr_map_free(&r->pids);
}

int cpi_procs_add(struct cpi_procs *r, const struct wp_profile *p)
{
	uint64_t threads = wp_stat_value(p, "threads");
	uint32_t dummy;

	if (wr_map_get(&r->pids, p->pid, 0, &dummy)) {
		r->threads += threads ? threads - 1 : 0;	/* the one that exec'd */
		return 0;
	}
	r->processes++;
	r->threads += threads;
	return wr_map_put(&r->pids, p->pid, 0, 0);
}
