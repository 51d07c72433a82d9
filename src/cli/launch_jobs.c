/*
 * launch_jobs.c - witch cpi under a launcher, in one command: `witch cpi
 * --launch='mpirun -np 64' -- ./app` starts the job twice, once for each
 * run (launch_jobs.h).
 *
 * A rank cannot make both runs in one job: a program started again in
 * its rank fails MPI_Init. So witch stays outside the launcher and starts
 * it twice, each time with itself inside making one run. The second job
 * gets the same stdin as the first (cpi_stdin.c), so that it can only go
 * the same way.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cpi_stdin.h"
#include "cli/launch.h"
#include "cli/launch_jobs.h"
#include "cli/oneline.h"
#include "cli/outdir.h"
#include "cli/target.h"

/* The launcher's words, split at blanks, into v; how many (cap + 1: too
 * many). */
static int split(char *s, char **v, int cap)
{
	int n = 0;

	for (s = strtok(s, " \t"); s && n <= cap; s = strtok(NULL, " \t"))
		if (n++ < cap)
			v[n - 1] = s;
	return n;
}

/* Whether opts[i] is --launch (and how many words it takes: 1 or 2). */
static int launch_words(char **opts, int i, int n)
{
	if (!strncmp(opts[i], "--launch=", 9))
		return 1;
	if (!strcmp(opts[i], "--launch"))
		return i + 1 < n ? 2 : 1;
	return 0;
}

/* The argv of job k: LAUNCH witch SUBCOMMAND OPTS RUN -- PROG. */
static char **job_argv(const struct launch_jobs *j, char **words, int nwords, const char *self, int k)
{
	char **v = calloc((size_t)(nwords + j->nopts + j->nprog + 5), sizeof(*v));
	int n = 0, i, skip;

	if (!v)
		return NULL;
	for (i = 0; i < nwords; i++)
		v[n++] = words[i];
	v[n++] = (char *)self;
	v[n++] = (char *)j->subcommand;
	for (i = 0; i < j->nopts; i += skip ? skip : 1) {
		skip = launch_words(j->opts, i, j->nopts);
		if (!skip && strcmp(j->opts[i], "--"))
			v[n++] = j->opts[i];
	}
	v[n++] = (char *)j->run[k];
	v[n++] = "--";
	for (i = 0; i < j->nprog; i++)
		v[n++] = j->prog[i];
	return v;
}

int launch_jobs(const struct launch_jobs *j)
{
	char *line = strdup(j->launch), *words[256], self[PATH_MAX], path[PATH_MAX], err[1024];
	char dir[PATH_MAX];
	int nwords, status[2], k, rc;
	struct cpi_stdin in;

	if (!line)
		return cli_fail(j->who, 2, "out of memory");
	nwords = split(line, words, 256);
	if (nwords == 0)
		return cli_fail(j->who, 2, "--launch='%s' names no launcher; give its command, "
					   "e.g. --launch='mpirun -np 4' or --launch='srun -n 4'", j->launch);
	if (nwords > 256)
		return cli_fail(j->who, 2, "--launch has more than 256 words; shorten the launcher's "
					   "command (a script that runs it, say)");
	if (target_resolve(words[0], path, sizeof(path), err, sizeof(err)) < 0)
		return cli_fail(j->who, 2, "--launch: %s", err);
	if (witch_self(self, sizeof(self)))
		return cli_fail(j->who, 2, "cannot find this witch's own path (/proc/self/exe)");
	/* Both jobs' profiles, and nothing of an earlier run. */
	rc = outdir_prepare(j->who, j->outdir, dir, sizeof(dir));
	if (rc)
		return rc;
	if (cpi_stdin_open(&in, j->who, dir))
		return 2;
	for (k = 0; k < 2; k++) {
		char **v = job_argv(j, words, nwords, self, k);

		if (!v)
			return cli_fail(j->who, 2, "out of memory");
		if (k == 0 && cpi_stdin_first(&in, j->who))
			return 2;
		status[k] = k == j->shown ? launch_and_wait(path, v, j->who)
					  : launch_quietly(path, v, j->who);
		if (k == 0)
			cpi_stdin_second(&in);
		free(v);
		if (status[k] < 0)
			return 2;
	}
	/* The hidden job's failure is not the program's: say it, as one line. */
	k = !j->shown;
	if (status[k])
		fprintf(stderr, "%s: warning: the %s job failed (%s %d); run it alone to see why: "
				"%s witch %s %s ...\n", j->who, j->run[k] + strlen("--run="),
			WIFSIGNALED(status[k]) ? "signal" : "exit status",
			WIFSIGNALED(status[k]) ? WTERMSIG(status[k]) : WEXITSTATUS(status[k]), j->launch,
			j->subcommand, j->run[k]);
	else if (!j->quiet)
		fprintf(stderr, "%s: both jobs ran (%s, then %s); see them with: witch report %s\n",
			j->who, j->run[0] + strlen("--run="), j->run[1] + strlen("--run="), j->outdir);
	free(line);
	exit_like(status[j->shown]);
}
