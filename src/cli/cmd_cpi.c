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
#include "cli/job.h"
#include "cli/launch.h"
#include "cli/launch_jobs.h"
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
	"  --run=sampled|counting\n"
	"                    only that run (its output and exit status are then the\n"
	"                    program's), replacing only that run's earlier profiles in\n"
	"                    DIR. Under mpirun or srun, where a rank can start once\n"
	"                    per job, each job makes one run: without --run, the\n"
	"                    sampled run, then, in the next job into DIR, the\n"
	"                    counting run\n"
	"  --launch=CMD      both runs as two jobs of the launcher CMD (its words split\n"
	"                    at blanks), started one after the other by witch, e.g.\n"
	"                    --launch='mpirun -np 64' or --launch='srun -n 64'\n"
	"  -q, --quiet       no progress line (on a terminal), no summary line\n";

/* Which of the two runs to make. */
enum runs { RUN_BOTH, RUN_SAMPLED, RUN_COUNTING };

struct cpi_opts {
	const char *outdir, *launch;
	long rate;
	int no_follow, quiet;
	enum runs runs;
	int by_turns;		/* a rank without --run: the run it lacks */
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
		{ "run", required_argument, NULL, 'R' },
		{ "launch", required_argument, NULL, 'L' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cli_optval vals[] = {
		CLI_OPTVAL_OUTPUT,
		{ 'r', "samples per second (--rate=HZ)" },
		{ 'R', "the run to make (--run=sampled or --run=counting)" },
		{ 'L', "the launcher's command (--launch='mpirun -np 4')" },
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
		case 'R':
			if (strcmp(optarg, "sampled") && strcmp(optarg, "counting"))
				return fail("--run=%s is not a run; use --run=sampled (the native, "
					    "sampled run) or --run=counting (under Valgrind)", optarg);
			o->runs = !strcmp(optarg, "sampled") ? RUN_SAMPLED : RUN_COUNTING;
			break;
		case 'L':
			o->launch = optarg;
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
	if (o->launch && o->runs != RUN_BOTH)
		return fail("--launch makes both runs, each as a job of its own: leave --run out");
	if (o->launch && cli_job()->rank >= 0)
		return fail("--launch starts the launcher itself (this is rank %lld of a job): run "
			    "witch cpi --launch=CMD outside any launcher", (long long)cli_job()->rank);
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
		    strcmp(de->d_name + n - strlen(PROFILE_SUFFIX), PROFILE_SUFFIX) ||
		    !cli_job_file(de->d_name, '-', PROFILE_SUFFIX))
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

/* Runs that differ are said, one line each: their figures may not join
 * (both: when this command made both). */
static void compare_runs(const struct run *s, const struct run *c, int both)
{
	char a[64], b[64];

	if (both && s->status != c->status)
		fprintf(stderr, WHO ": warning: the two runs ended differently (sampled run: %s, "
				"counting run: %s): the program did not do the same work twice\n",
			ending(s->status, a, sizeof(a)), ending(c->status, b, sizeof(b)));
	if (both && (s->procs.processes != c->procs.processes || s->procs.threads != c->procs.threads))
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

/* The last line: what the runs took, and where they are (rank 0's alone
 * under a launcher, for all ranks). */
static void say_runs(const struct cpi_opts *o, const struct run *sampled, const struct run *counted)
{
	const char *rank = cli_job()->rank >= 0 ? "rank 0: " : "";

	if (o->quiet || cli_job_quiet())
		return;
	if (o->by_turns && o->runs == RUN_SAMPLED)
		fprintf(stderr, WHO ": rank 0: sampled run %.2f s (%llu samples); run the same job again "
				"for the counting run\n", sampled->seconds,
			(unsigned long long)sampled->samples);
	else if (o->by_turns)
		fprintf(stderr, WHO ": rank 0: counting run %.2f s (%llu instructions), after the "
				"sampled run of the job before; see them with: witch report %s\n",
			counted->seconds, (unsigned long long)counted->instructions, o->outdir);
	else if (o->runs == RUN_BOTH)
		fprintf(stderr, WHO ": %ssampled run %.2f s (%llu samples), counting run %.2f s "
				"(%llu instructions); see them with: witch report %s\n", rank,
			sampled->seconds, (unsigned long long)sampled->samples, counted->seconds,
			(unsigned long long)counted->instructions, o->outdir);
	else if (o->runs == RUN_SAMPLED)
		fprintf(stderr, WHO ": %ssampled run %.2f s (%llu samples); with a counting run "
				"(--run=counting) into %s, see them with: witch report %s\n", rank,
			sampled->seconds, (unsigned long long)sampled->samples, o->outdir, o->outdir);
	else
		fprintf(stderr, WHO ": %scounting run %.2f s (%llu instructions); with a sampled run "
				"(--run=sampled) into %s, see them with: witch report %s\n", rank,
			counted->seconds, (unsigned long long)counted->instructions, o->outdir,
			o->outdir);
}

int cmd_cpi(int argc, char **argv)
{
	char path[PATH_MAX], err[1024], lib[PATH_MAX], outdir[PATH_MAX], defdir[PATH_MAX];
	char valgrind[PATH_MAX];
	const char *tool_opts[] = { "--witch-tool=count", NULL };
	const char *old_preload = getenv("LD_PRELOAD");
	struct run sampled, counted;
	struct cpi_opts o;
	const char *base, *missing;
	char **vargv;
	struct cpi_stdin in;
	int rc = 0, status;
	double t0;

	rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	argv += optind;
	argc -= optind;
	if (cli_job_not_launcher(WHO, argv[0], err, sizeof(err)) < 0 ||
	    target_resolve(argv[0], path, sizeof(path), err, sizeof(err)) < 0 ||
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
	if (o.launch) {
		struct launch_jobs j = {
			.who = WHO, .launch = o.launch, .subcommand = "cpi",
			.opts = argv - optind + 1, .nopts = optind - 1, .prog = argv, .nprog = argc,
			.run = { "--run=sampled", "--run=counting" }, .shown = 0,
			.outdir = o.outdir, .quiet = o.quiet,
		};

		return launch_jobs(&j);
	}
	/* A rank can start once per job (Open MPI's second MPI_Init fails:
	 * "getting local rank failed"): without --run, it makes the run it
	 * lacks, the counting run after its sampled run alone, else the
	 * sampled run, anew. */
	if (o.runs == RUN_BOTH && cli_job()->rank >= 0) {
		o.by_turns = 1;
		o.runs = outdir_has_tool(o.outdir, "time") && !outdir_has_tool(o.outdir, "count")
				 ? RUN_COUNTING : RUN_SAMPLED;
	}
	/* One run replaces its own earlier profiles, and keeps the other's;
	 * a rank's sampled run starting anew keeps neither. */
	if (o.runs == RUN_BOTH || (o.by_turns && o.runs == RUN_SAMPLED))
		rc = outdir_prepare(WHO, o.outdir, outdir, sizeof(outdir));
	else
		rc = outdir_prepare_run(WHO, o.outdir, outdir, sizeof(outdir),
					o.runs == RUN_SAMPLED ? "time" : "count");
	if (rc)
		return rc;
	if (old_preload)
		old_preload = strdup(old_preload);
	/* Stdin is given alike to two runs; one run reads it as it is. */
	if (o.runs == RUN_BOTH && cpi_stdin_open(&in, WHO, outdir))
		return 2;
	vargv = vg_argv(tool_opts, outdir, o.no_follow, 0, o.quiet ? NULL : WHO, path, argc, argv);
	if (!vargv)
		return fail("out of memory");
	memset(&sampled, 0, sizeof(sampled));
	memset(&counted, 0, sizeof(counted));
	/* The same glibc routines natively as under Valgrind. */
	set_glibc_tunables();

	if (o.runs != RUN_COUNTING) {
		sampled_env(lib, outdir, &o);
		if (o.runs == RUN_BOTH && cpi_stdin_first(&in, WHO))
			return 2;
		t0 = now_s();
		sampled.status = launch_and_wait(path, argv, WHO);
		sampled.seconds = now_s() - t0;
		if (o.runs == RUN_BOTH)
			cpi_stdin_second(&in);
		if (sampled.status < 0)
			return 127;
		restore_env(old_preload);
	}
	if (o.runs != RUN_SAMPLED) {
		/* Alone, the counting run is the program's, output and all. */
		t0 = now_s();
		counted.status = o.runs == RUN_COUNTING ? launch_and_wait(valgrind, vargv, WHO)
							 : launch_quietly(valgrind, vargv, WHO);
		if (counted.status < 0)
			return 2;
		counted.seconds = now_s() - t0;
		rc = vg_diagnose(WHO, argv[0], outdir, counted.status);
		if (rc == 1)
			return 2;
	}
	vg_argv_free(vargv);

	read_runs(outdir, &sampled, &counted);
	status = o.runs == RUN_COUNTING ? counted.status : sampled.status;
	missing = o.runs != RUN_COUNTING && !sampled.procs.processes ? "sampled"
		  : o.runs != RUN_SAMPLED && !counted.procs.processes ? "counting" : NULL;
	if (missing) {
		fprintf(stderr, WHO ": %s ended without writing the %s run's profile to %s (killed "
				"before it could write it?)%s\n", argv[0], missing, o.outdir,
			!strcmp(missing, "counting") ? "; Valgrind said:" : "");
		if (!strcmp(missing, "counting"))
			vg_show_logs(outdir);
		exit_like(status);
	}
	if (o.runs != RUN_SAMPLED && rc == 0)
		vg_remove_logs(outdir);
	compare_runs(&sampled, &counted, o.runs == RUN_BOTH);
	say_runs(&o, &sampled, &counted);
	exit_like(status);
}
