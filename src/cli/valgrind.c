/*
 * valgrind.c - running a program under witchspy (valgrind.h).
 */
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/job.h"
#include "cli/oneline.h"
#include "cli/outdir.h"
#include "cli/target.h"
#include "cli/valgrind.h"

#define TOOL_FILE "witchspy-amd64-linux"
/* valgrind-PID.log (a launcher's rank: valgrind-hHOST-rRANK-PID.log):
 * outdir_prepare removes them with old profiles. */
#define LOG_PREFIX "valgrind-"
#define LOG_SUFFIX ".log"

int vg_find(const char *who, char *valgrind, size_t vcap)
{
	char err[1024], dir[PATH_MAX], tool[PATH_MAX + 64];

	if (target_resolve("valgrind", valgrind, vcap, err, sizeof(err)) < 0)
		return cli_fail(who, -1, "valgrind is not installed (not in PATH); %s runs programs "
			       "under it: install it (apt-get install valgrind)", who);
	/* The tool lives in witch's library directory, with the Valgrind
	 * files it needs. */
	if (witch_libdir(dir, sizeof(dir)) < 0)
		return cli_fail(who, -1, "cannot find witch's library directory; reinstall witch");
	snprintf(tool, sizeof(tool), "%s/" TOOL_FILE, dir);
	if (access(tool, X_OK) < 0)
		return cli_fail(who, -1, "cannot find " TOOL_FILE " in %s; rebuild or reinstall witch",
				dir);
	setenv("VALGRIND_LIB", dir, 1);
	return 0;
}

char **vg_argv(const char *const *tool_opts, const char *outdir, int no_follow, int verbose,
	       const char *progress, const char *path, int argc, char **argv)
{
	const char *tty = progress && isatty(2) ? ttyname(2) : NULL;
	char **v = calloc((size_t)argc + 32, sizeof(*v));
	char *out = NULL, *log = NULL;
	int n = 0, i;

	if (!v)
		return NULL;
	v[n++] = strdup("valgrind");
	v[n++] = strdup("--tool=witchspy");
	for (i = 0; tool_opts[i] && i < 16; i++)
		v[n++] = strdup(tool_opts[i]);
	if (asprintf(&out, "--witch-out=%s", outdir) < 0)
		out = NULL;
	v[n++] = out;
	/* Children and exec'd programs are profiled too, as with witch record;
	 * Valgrind follows forks anyway, the tool then writes nothing. */
	v[n++] = strdup(no_follow ? "--trace-children=no" : "--trace-children=yes");
	if (no_follow)
		v[n++] = strdup("--witch-follow=no");
	v[n++] = strdup("--vgdb=no");
	/* The terminal by name: the tool opens it for each line (progress.c). */
	if (tty) {
		if (asprintf(&v[n++], "--witch-progress=%s", tty) < 0)
			v[n - 1] = NULL;
		if (asprintf(&v[n++], "--witch-progress-label=%s", progress) < 0)
			v[n - 1] = NULL;
	}
	if (verbose) {
		v[n++] = strdup("-v");
	} else {
		/* Per process: traced children write their own. Valgrind expands
		 * %p in the name, and reads %% as a '%' of the directory's. */
		size_t k = strlen("--log-file="), len = k + 2 * strlen(outdir) + 64 +
			   strlen(cli_job_tag());
		const char *q;

		log = malloc(len);
		if (log) {
			memcpy(log, "--log-file=", k);
			for (q = outdir; *q; q++) {
				if (*q == '%')
					log[k++] = '%';
				log[k++] = *q;
			}
			snprintf(log + k, len - k, "/valgrind%s-%%p" LOG_SUFFIX, cli_job_tag());
		}
		v[n++] = log;
	}
	v[n++] = strdup("--");
	v[n++] = strdup(path);
	for (i = 1; i < argc; i++)
		v[n++] = strdup(argv[i]);
	v[n] = NULL;
	for (i = 0; i < n; i++)
		if (!v[i]) {
			while (n--)
				free(v[n]);
			free(v);
			return NULL;
		}
	return v;
}

void vg_argv_free(char **vargv)
{
	char **p;

	for (p = vargv; p && *p; p++)
		free(*p);
	free(vargv);
}

/* First line of a log file containing needle, without its "==pid== " prefix. */
static int log_line(const char *dir, const char *needle, char *out, size_t cap)
{
	char path[PATH_MAX + 300], line[1024];
	struct dirent *de;
	DIR *d = opendir(dir);
	int found = 0;

	while (d && !found && (de = readdir(d))) {
		FILE *f;

		if (!outdir_is_valgrind_log(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		while (f && !found && fgets(line, sizeof(line), f)) {
			char *s = line, *nl;

			if (!strstr(line, needle))
				continue;
			if (s[0] == '=' && s[1] == '=' && (nl = strstr(s + 2, "== ")))
				s = nl + 3;
			if ((nl = strchr(s, '\n')))
				*nl = 0;
			snprintf(out, cap, "%s", s);
			found = 1;
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

void vg_show_logs(const char *dir)
{
	char path[PATH_MAX + 300], line[1024];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		FILE *f;

		if (!outdir_is_valgrind_log(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			fprintf(stderr, "  %s", line);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

void vg_remove_logs(const char *dir)
{
	outdir_remove(dir, outdir_is_valgrind_log);
}

int vg_diagnose(const char *who, const char *prog, const char *outdir, int status)
{
	char line[1024];

	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGILL &&
	    log_line(outdir, "unhandled instruction bytes", line, sizeof(line))) {
		fprintf(stderr, "%s: Valgrind cannot run %s: it uses an instruction Valgrind does not "
				"know (%s; AVX-512 is not supported) - build it without that instruction "
				"set (e.g. -march=x86-64-v3) to run it under Valgrind\n",
			who, prog, line);
		return 1;
	}
	if (log_line(outdir, "the 'impossible' happened", line, sizeof(line)) ||
	    log_line(outdir, "Valgrind: FATAL", line, sizeof(line)) ||
	    log_line(outdir, "valgrind: ", line, sizeof(line)) ||
	    log_line(outdir, "Assertion", line, sizeof(line))) {
		fprintf(stderr, "%s: Valgrind failed while running %s: %s (full log in %s/"
				LOG_PREFIX "*" LOG_SUFFIX ")\n", who, prog, line, outdir);
		return 1;
	}
	if (log_line(outdir, "unhandled amd64-linux syscall", line, sizeof(line))) {
		fprintf(stderr, "%s: warning: %s made a system call Valgrind does not support and got "
				"ENOSYS for it (%s)\n", who, prog, line);
		return 2;
	}
	return 0;
}
