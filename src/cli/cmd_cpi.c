/*
 * cmd_cpi.c - `witch cpi`: the time each execution of every instruction,
 * block, loop, line and function costs (OptiWISE), from two runs of the
 * same command: a native one sampled by libwitch.so (tool time: where the
 * CPU time goes) and one under witchspy that counts every execution and
 * edge (tool count). witch report joins them (docs/cpi.md).
 *
 * Both runs get the same arguments, environment and stdin (stdin that is
 * not a terminal is read once and given to each), and the same glibc
 * routines (tunables.c). The first run's stdout, stderr and exit status
 * are the program's; the counting run's output is not shown. Runs that
 * differ (exit status, processes, threads) are reported.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/cpi_stdin.h"
#include "cli/launch.h"
#include "cli/nominal.h"
#include "cli/number.h"
#include "cli/oneline.h"
#include "cli/optfail.h"
#include "cli/outdir.h"
#include "cli/target.h"
#include "cli/tunables.h"
#include "cli/valgrind.h"
#include "core/contract.h"
#include "profile/reader.h"
#include "report/cpi.h"

#define WHO "witch cpi"

static const char usage_text[] =
	"usage: witch cpi [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Runs PROGRAM twice: natively, sampled by a timer on each thread's CPU time\n"
	"(where the time goes), and under Valgrind, counting every instruction's\n"
	"executions and every branch exactly (how often code runs). `witch report DIR`\n"
	"joins them: time per execution of every instruction, block, loop, source line\n"
	"and function. The first run's output and exit status are the program's.\n"
	"\n"
	"  -o, --output=DIR  output directory (default witch-PROGRAM-cpi; earlier\n"
	"                    profiles there are replaced)\n"
	"  --rate=HZ         samples per second of each thread's CPU time (default\n"
	"                    " CPI_DEFAULT_RATE_TEXT "; above 250 a costlier perf timer samples)\n"
	"  --no-follow       measure only PROGRAM's own process, not the programs it\n"
	"                    runs (exec) or the children it forks\n"
	"  -q, --quiet       no progress line (on a terminal), no summary line\n";

struct cpi_opts {
	const char *outdir;
	long rate;
	int no_follow, quiet;
};

/* What one run left: its profiles, processes and threads. */
struct run {
	int status;
	double seconds;
	struct cpi_procs procs;	/* processes and threads, as the report counts them */
	uint64_t samples, instructions, inexact;
};

#define fail(...) cli_fail(WHO, 2, __VA_ARGS__)

static int parse(int argc, char **argv, struct cpi_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "rate", required_argument, NULL, 'r' },
		{ "no-follow", no_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cli_optval vals[] = {
		CLI_OPTVAL_OUTPUT,
		{ 'r', "samples per second (--rate=HZ)" },
		{ 0, NULL },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->rate = CPI_DEFAULT_RATE;
	opterr = 0;
	/* "+": stop at the program name, its options are its own. */
	while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->outdir = optarg;
			break;
		case 'r':
			if (cli_long(optarg, 1, 100000, &o->rate) < 0)
				return fail("--rate=%s is not a rate; give samples per second, 1 to 100000",
					    optarg);
			break;
		case 'F':
			o->no_follow = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		default:
			return cli_option_fail(WHO, WHO, "+o:qh", vals, argv);
		}
	}
	if (optind >= argc)
		return fail("no program given; usage: witch cpi [OPTIONS] -- PROGRAM [ARGS...]");
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sampled_env(const char *lib, const char *outdir, const struct cpi_opts *o)
{
	const char *old = getenv("LD_PRELOAD");
	char buf[PATH_MAX * 2], num[32];

	snprintf(buf, sizeof(buf), "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
	setenv("LD_PRELOAD", buf, 1);
	setenv(ENV_SAMPLES_ONLY, "1", 1);
	setenv(ENV_OUT, outdir, 1);
	snprintf(num, sizeof(num), "%ld", o->rate);
	setenv(ENV_RATE, num, 1);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)cpu_nominal_khz());
	setenv(ENV_NOMINAL_KHZ, num, 1);
	if (o->no_follow)
		setenv(ENV_NO_FOLLOW, "1", 1);
	else
		unsetenv(ENV_NO_FOLLOW);
}

/* The environment the program was given, for the counting run. */
static void restore_env(const char *old_preload)
{
	if (old_preload)
		setenv("LD_PRELOAD", old_preload, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv(ENV_SAMPLES_ONLY);
	unsetenv(ENV_OUT);
	unsetenv(ENV_RATE);
	unsetenv(ENV_NOMINAL_KHZ);
	unsetenv(ENV_NO_FOLLOW);
}

/* What the runs' profiles say. */
static void read_runs(const char *dir, struct run *sampled, struct run *counted)
{
	char path[PATH_MAX + 300], err[1024];
	struct wp_profile *p;
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		struct run *r;

		if (n <= strlen(PROFILE_SUFFIX) ||
		    strcmp(de->d_name + n - strlen(PROFILE_SUFFIX), PROFILE_SUFFIX))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (wp_read(path, &p, err, sizeof(err)) < 0)
			continue;
		r = !strcmp(p->tool, "time") ? sampled : !strcmp(p->tool, "count") ? counted : NULL;
		if (r) {
			if (cpi_procs_add(&r->procs, p))
				fail("out of memory; the runs' processes are not compared");
			r->samples += wp_stat_value(p, "samples");
			r->instructions += wp_stat_value(p, "instructions");
			r->inexact += wp_stat_value(p, "inexact_translations");
		}
		wp_free(p);
	}
	if (d)
		closedir(d);
}

static const char *ending(int status, char *buf, size_t cap)
{
	if (WIFSIGNALED(status))
		snprintf(buf, cap, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, cap, "exit status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return buf;
}

/* Runs that differ are said, one line each: their figures may not join. */
static void compare_runs(const struct run *s, const struct run *c)
{
	char a[64], b[64];

	if (s->status != c->status)
		fprintf(stderr, WHO ": warning: the two runs ended differently (sampled run: %s, "
				"counting run: %s): the program did not do the same work twice\n",
			ending(s->status, a, sizeof(a)), ending(c->status, b, sizeof(b)));
	if (s->procs.processes != c->procs.processes || s->procs.threads != c->procs.threads)
		fprintf(stderr, WHO ": warning: the two runs differ: the sampled run had %u "
				"process%s and %llu thread%s, the counting run %u and %llu\n",
			s->procs.processes, s->procs.processes == 1 ? "" : "es",
			(unsigned long long)s->procs.threads, s->procs.threads == 1 ? "" : "s",
			c->procs.processes, (unsigned long long)c->procs.threads);
	if (c->inexact)
		fprintf(stderr, WHO ": warning: %llu translation%s of the counting run could not be "
				"counted exactly; report it as a bug\n",
			(unsigned long long)c->inexact, c->inexact == 1 ? "" : "s");
	if (s->procs.processes && !s->samples)
		fprintf(stderr, WHO ": warning: the sampled run took no sample: it ran for less than "
				"a sampling interval of CPU time; give it more work or a higher --rate\n");
}

int cmd_cpi(int argc, char **argv)
{
	char path[PATH_MAX], err[1024], lib[PATH_MAX], outdir[PATH_MAX], defdir[PATH_MAX];
	char valgrind[PATH_MAX];
	const char *tool_opts[] = { "--witch-tool=count", NULL };
	const char *old_preload = getenv("LD_PRELOAD");
	struct run sampled, counted;
	struct cpi_opts o;
	const char *base;
	char **vargv;
	struct cpi_stdin in;
	int rc;
	double t0;

	rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	argv += optind;
	argc -= optind;
	if (target_resolve(argv[0], path, sizeof(path), err, sizeof(err)) < 0 ||
	    target_preloadable(path, err, sizeof(err)) < 0)
		return fail("%s", err);
	if (witch_libdir(lib, sizeof(lib)) < 0 ||
	    (size_t)snprintf(lib + strlen(lib), sizeof(lib) - strlen(lib), "/libwitch.so") >=
		    sizeof(lib) - strlen(lib) ||
	    access(lib, R_OK) < 0)
		return fail("cannot find libwitch.so next to this witch (%s); reinstall witch", lib);
	if (vg_find(WHO, valgrind, sizeof(valgrind)) < 0)
		return 2;
	if (!o.outdir) {
		base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
		snprintf(defdir, sizeof(defdir), "witch-%s-cpi", base);
		o.outdir = defdir;
	}
	rc = outdir_prepare(WHO, o.outdir, outdir, sizeof(outdir));
	if (rc)
		return rc;
	if (old_preload)
		old_preload = strdup(old_preload);
	if (cpi_stdin_open(&in, WHO, outdir))
		return 2;
	vargv = vg_argv(tool_opts, outdir, o.no_follow, 0, o.quiet ? NULL : WHO, path, argc, argv);
	if (!vargv)
		return fail("out of memory");
	memset(&sampled, 0, sizeof(sampled));
	memset(&counted, 0, sizeof(counted));
	/* The same glibc routines natively as under Valgrind. */
	set_glibc_tunables();

	sampled_env(lib, outdir, &o);
	if (cpi_stdin_first(&in, WHO))
		return 2;
	t0 = now_s();
	sampled.status = launch_and_wait(path, argv, WHO);
	sampled.seconds = now_s() - t0;
	cpi_stdin_second(&in);
	if (sampled.status < 0)
		return 127;

	restore_env(old_preload);
	t0 = now_s();
	counted.status = launch_quietly(valgrind, vargv, WHO);
	if (counted.status < 0)
		return 2;
	counted.seconds = now_s() - t0;
	vg_argv_free(vargv);
	rc = vg_diagnose(WHO, argv[0], outdir, counted.status);
	if (rc == 1)
		return 2;

	read_runs(outdir, &sampled, &counted);
	if (!sampled.procs.processes || !counted.procs.processes) {
		fprintf(stderr, WHO ": %s ended without writing the %s run's profile to %s (killed "
				"before it could write it?)%s\n", argv[0],
			!sampled.procs.processes ? "sampled" : "counting", o.outdir,
			sampled.procs.processes ? "; Valgrind said:" : "");
		if (sampled.procs.processes)
			vg_show_logs(outdir);
		exit_like(sampled.status);
	}
	if (rc == 0)
		vg_remove_logs(outdir);
	compare_runs(&sampled, &counted);
	if (!o.quiet)
		fprintf(stderr, WHO ": sampled run %.2f s (%llu samples), counting run %.2f s "
				"(%llu instructions); see them with: witch report %s\n",
			sampled.seconds, (unsigned long long)sampled.samples, counted.seconds,
			(unsigned long long)counted.instructions, o.outdir);
	exit_like(sampled.status);
}
