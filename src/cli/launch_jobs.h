/*
 * launch_jobs.h - a command's two runs as two jobs of a launcher
 * (--launch=CMD of witch cpi).
 */
#ifndef WITCH_CLI_LAUNCH_JOBS_H
#define WITCH_CLI_LAUNCH_JOBS_H

struct launch_jobs {
	const char *who;	/* "witch cpi" */
	const char *launch;	/* the launcher and its options, split at blanks */
	const char *subcommand;	/* "cpi", "spy" */
	char **opts;		/* witch's options as given, up to the program */
	int nopts;
	char **prog;		/* the program and its arguments */
	int nprog;
	const char *run[2];	/* the option of each job: "--run=sampled", ... */
	int shown;		/* the job (0, 1) whose output and exit status are
				   the program's; the other's go nowhere */
	const char *outdir;	/* -o as given: emptied before the first job */
	int quiet;		/* no last line */
};

/* Run the two jobs, one after the other: `LAUNCH witch SUBCOMMAND OPTS
 * RUN -- PROG`, every --launch of opts left out. Exits like the shown job,
 * or returns witch's exit status after a one-line error. */
int launch_jobs(const struct launch_jobs *j);

#endif
