/*
 * spy_loop.c - witch spy --tool=loop's loop-finding run (spy_loop.h).
 *
 * Loops are found in the binary after a run that counted every
 * instruction and edge, by the analysis witch cpi uses (natural loops,
 * OptiWISE's merging and nesting; report/cpi_loops.c): one way to find
 * loops for both commands, and only code that ran, so the map is small
 * and the loop run instruments only what can matter. Its profiles stay in
 * DIR/cfg, beside the map, so that `witch report DIR` reads the loop
 * run's profiles alone.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cpi_stdin.h"
#include "cli/job.h"
#include "cli/launch.h"
#include "cli/loop_map.h"
#include "cli/oneline.h"
#include "cli/outdir.h"
#include "cli/spy_loop.h"
#include "cli/valgrind.h"
#include "report/cpi.h"
#include "report/report.h"
#include "report/symbolize.h"

/* The counting run, as witch cpi's: with the loop run after it, the
 * program's output is the loop run's to show; alone, the run is the
 * program's, output, stdin and all. Its wait status in *status. Returns
 * 0 or witch's exit status. */
static int count_run(const struct spy_loop_run *r, const char *cfg, int *status)
{
	const char *tool_opts[] = { "--witch-tool=count", NULL };
	struct cpi_stdin in;
	char **vargv;
	int rc;

	if (!r->alone && (cpi_stdin_open(&in, r->who, r->outdir) || cpi_stdin_first(&in, r->who)))
		return 2;
	vargv = vg_argv(tool_opts, cfg, r->no_follow, 0, r->progress, r->path, r->argc, r->argv);
	if (!vargv)
		return cli_fail(r->who, 2, "out of memory");
	*status = r->alone ? launch_and_wait(r->valgrind, vargv, r->who)
			   : launch_quietly(r->valgrind, vargv, r->who);
	vg_argv_free(vargv);
	if (!r->alone)
		cpi_stdin_second(&in);
	if (*status < 0)
		return 2;
	rc = vg_diagnose(r->who, r->argv[0], cfg, *status);
	if (rc == 1)
		return 2;
	if (!outdir_count_profiles(cfg, NULL)) {
		fprintf(stderr, "%s: %s ended without writing the counting run's profile to %s "
				"(killed before Valgrind could write it?); Valgrind said:\n",
			r->who, r->argv[0], cfg);
		vg_show_logs(cfg);
		exit_like(*status);
	}
	if (rc == 0)
		vg_remove_logs(cfg);
	return 0;
}

/* The loops of the counting run's profiles in cfg, into map. */
static int write_map(const struct spy_loop_run *r, const char *cfg, const char *map)
{
	struct wr_symbolizer *sym = NULL;
	struct cpi *c = cpi_new();
	char *paths[1] = { (char *)cfg }, err[1024];
	FILE *f = NULL;
	long n = -1;
	int rc = 2;

	if (!c) {
		cli_fail(r->who, 2, "out of memory");
		goto out;
	}
	c->counts_only = 1;
	/* This rank's runs alone: the other ranks' share the directory. */
	c->r->only_rank = cli_job()->rank;
	if (cpi_load(c, paths, 1, err, sizeof(err))) {
		cli_fail(r->who, 2, "cannot find the loops: %s", err);
		goto out;
	}
	/* Warnings about modules it cannot read (their loops are still
	 * found: blocks come from the counts) go where witch report puts them. */
	if (!(sym = wr_sym_new(c->r, stderr)) || cpi_analyze(c, sym)) {
		cli_fail(r->who, 2, "out of memory while finding the loops");
		goto out;
	}
	f = fopen(map, "w");
	if (f)
		n = loop_map_write(f, c);
	if (!f || fclose(f) || n < 0) {
		cli_fail(r->who, 2, "cannot write the loop map %s", map);
		goto out;
	}
	if (n == 0)
		fprintf(stderr, "%s: warning: the counting run of %s found no loop in its code: the "
				"loop run will report none\n", r->who, r->argv[0]);
	rc = 0;
out:
	wr_sym_free(sym);
	cpi_free(c);
	return rc;
}

int spy_loop_map_path(const char *who, const char *outdir, char *map, size_t cap)
{
	/* Under a launcher each rank has its own: its loops may differ. */
	if ((size_t)snprintf(map, cap, "%s/cfg/loops%s.map", outdir, cli_job_tag()) >= cap)
		return cli_fail(who, 2, "output directory path too long: %s", outdir);
	return 0;
}

int spy_loop_find(const struct spy_loop_run *r, char *map, size_t cap, int *status)
{
	char cfg[PATH_MAX], abs[PATH_MAX];
	int rc;

	if ((size_t)snprintf(cfg, sizeof(cfg), "%s/cfg", r->outdir) >= sizeof(cfg))
		return cli_fail(r->who, 2, "output directory path too long: %s", r->outdir);
	rc = spy_loop_map_path(r->who, r->outdir, map, cap);
	if (rc)
		return rc;
	/* An earlier run's profiles and map go: they are of another program. */
	rc = outdir_prepare(r->who, cfg, abs, sizeof(abs));
	if (rc)
		return rc;
	remove(map);
	rc = count_run(r, abs, status);
	return rc ? rc : write_map(r, abs, map);
}
