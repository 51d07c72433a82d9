/*
 * cmd_record.c - `witch record`: run a program with libwitch.so preloaded
 * and leave one profile per process in the output directory.
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
#include <unistd.h>

#include "cli/number.h"
#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/job.h"
#include "cli/outdir.h"
#include "cli/perfcheck.h"
#include "cli/target.h"
#include "cli/oneline.h"
#include "cli/optfail.h"
#include "core/contract.h"
#include "profile/reader.h"

#define WHO "witch record"

static const char usage_text[] =
	"usage: witch record [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Runs PROGRAM with the WITCH sampler preloaded and writes one profile per\n"
	"process into the output directory (earlier profiles there are replaced).\n"
	"\n"
	"  --craft=dead|silent|load|share\n"
	"                            what to look for (default dead: stores overwritten unread;\n"
	"                            share: cache lines that threads share, falsely or truly)\n"
	"  -o, --output=DIR          output directory (default witch-PROGRAM-CRAFT)\n"
	"  --source=timer|pmu        what takes samples: a timer on each thread's CPU time\n"
	"                            (default; works everywhere, weighs accesses by the time\n"
	"                            before them), or the CPU's precise memory events (Intel\n"
	"                            PEBS, AMD IBS; weighs them by count, as the WITCH paper)\n"
	"  --rate=HZ                 timer: samples per second of each thread's CPU time (default\n"
	"                            " RECORD_DEFAULT_RATE_TEXT "; up to 250 uses a cheap POSIX CPU timer, above perf task-clock)\n"
	"  --period=N                timer: sample every N nanoseconds of CPU time instead of --rate;\n"
	"                            pmu: every N stores (loads for --craft=load; default 5000011,\n"
	"                            10000019), or on AMD every N ops of any kind (default 1000000)\n"
	"  --spread=N                timer: each sample stands for one of the next N stores (loads)\n"
	"                            drawn at random, not the next one: neighbouring accesses\n"
	"                            share the time before them, which evens out the timer's\n"
	"                            weighting by time, at up to 2 more traps a sample\n"
	"                            (default " RECORD_DEFAULT_SPREAD_TEXT "; 1: the next access)\n"
	"  --reach=N                 timer: a sample stands for the access it finds within N\n"
	"                            instructions, or for none: one after a long stretch of\n"
	"                            other work would otherwise get all of its samples\n"
	"                            (default " RECORD_DEFAULT_REACH_TEXT " for stores, " RECORD_DEFAULT_LOAD_REACH_TEXT " for loads;\n"
	"                            0: no limit)\n"
	"  --registers=N             debug registers to use, 2 to 4 (default: all, usually 4)\n"
	"  --watch=auto|registers|pages\n"
	"                            how to watch: hardware debug registers, or page protection\n"
	"                            and single steps where those do not fire (slower per trap,\n"
	"                            and only until the program starts a second thread);\n"
	"                            auto (default) takes registers when they work\n"
	"  --approx=TOL              relative tolerance for floating-point equality in the\n"
	"                            silent and load crafts (default " RECORD_DEFAULT_APPROX_TEXT "; 0: exact only)\n"
	"  --no-follow               profile only PROGRAM's own process, not the programs it\n"
	"                            runs (exec) or the children it forks\n"
	"  -q, --quiet               no summary line after the run\n";

struct record_opts {
	const char *craft;
	const char *outdir;
	const char *source;
	long rate, period, spread, reach;
	int reach_given, spread_given;
	int rate_given;
	const char *approx;
	int registers;
	const char *watch;
	int quiet;
	int no_follow;
};

/* One line on stderr, whatever the paths it quotes hold (cli/oneline.h). */
#define fail(...) cli_fail(WHO, 2, __VA_ARGS__)

/* The options that depend on --source, checked once all are known. */
static int check_source(const struct record_opts *o)
{
	char num[32];

	snprintf(num, sizeof(num), "%ld", o->period);
	if (!strcmp(o->source, "timer")) {
		if (o->period && o->period < 10000)
			return fail("--period=%s is too short for the timer: give CPU nanoseconds per "
				    "sample, 10000 to 10000000000", num);
		return 0;
	}
	if (o->spread_given && o->spread > 1)
		return fail("--spread draws among the accesses after a timer sample; --source=pmu "
			    "samples accesses themselves, by count: drop --spread");
	if (o->reach_given)
		return fail("--reach limits how far a timer sample looks for its access; "
			    "--source=pmu samples accesses themselves: drop --reach");
	if (o->rate_given)
		return fail("--rate counts CPU time, which --source=pmu does not sample; give "
			    "--period=N accesses per sample instead");
	if (!strcmp(o->watch, "pages"))
		return fail("--source=pmu watches with debug registers; drop --watch=pages");
	if (o->period && o->period < 1000)
		return fail("--period=%s samples too often for the PMU (an interrupt per %s "
			    "accesses); give 1000 or more", num, num);
	return 0;
}

static int parse(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "craft", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "rate", required_argument, NULL, 'r' },
		{ "period", required_argument, NULL, 'p' },
		{ "source", required_argument, NULL, 's' },
		{ "registers", required_argument, NULL, 'n' },
		{ "spread", required_argument, NULL, 'S' },
		{ "reach", required_argument, NULL, 'R' },
		{ "approx", required_argument, NULL, 'a' },
		{ "watch", required_argument, NULL, 'w' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-follow", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cli_optval vals[] = { CLI_OPTVAL_OUTPUT, { 0, NULL } };
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->craft = "dead";
	o->rate = RECORD_DEFAULT_RATE;
	o->spread = RECORD_DEFAULT_SPREAD;
	o->source = "timer";
	o->watch = "auto";
	/* "+": stop at the program name, its options are its own. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->craft = optarg;
			break;
		case 'o':
			o->outdir = optarg;
			break;
		case 'r':
			if (cli_long(optarg, 1, 100000, &v) < 0)
				return fail("--rate=%s is not a rate; give samples per second, 1 to 100000",
					    optarg);
			o->rate = v;
			o->rate_given = 1;
			break;
		case 'p':
			/* Nanoseconds or events, by --source: checked below. */
			if (cli_long(optarg, 1, 10000000000L, &v) < 0)
				return fail("--period=%s is not a period; give CPU nanoseconds per sample "
					    "(10000 to 10000000000), or with --source=pmu accesses per "
					    "sample", optarg);
			o->period = v;
			break;
		case 's':
			if (strcmp(optarg, "timer") && strcmp(optarg, "pmu"))
				return fail("--source=%s: give timer (the default) or pmu", optarg);
			o->source = optarg;
			break;
		case 'S':
			if (cli_long(optarg, 1, RECORD_MAX_SPREAD, &v) < 0)
				return fail("--spread=%s: give how many accesses a sample draws among, "
					    "1 (the next one) to " RECORD_MAX_SPREAD_TEXT, optarg);
			o->spread = v;
			o->spread_given = 1;
			break;
		case 'R':
			if (cli_long(optarg, 0, RECORD_MAX_REACH, &v) < 0)
				return fail("--reach=%s: give how many instructions ahead a sample may "
					    "find its access, 0 (no limit) to " RECORD_MAX_REACH_TEXT, optarg);
			o->reach = v;
			o->reach_given = 1;
			break;
		case 'n':
			/* One register is the probe's, at least one must watch. */
			if (cli_long(optarg, 2, 4, &v) < 0)
				return fail("--registers=%s: give 2 to 4 debug registers (one leads samples "
					    "to their access, the others watch)", optarg);
			o->registers = (int)v;
			break;
		case 'a': {
			char *end;
			double tol = strtod(optarg, &end);

			if (!*optarg || *end || !(tol >= 0 && tol < 1))
				return fail("--approx=%s is not a tolerance; give a relative tolerance "
					    "from 0 (exact only) to below 1, e.g. 0.01", optarg);
			o->approx = optarg;
			break;
		}
		case 'w':
			if (strcmp(optarg, "auto") && strcmp(optarg, "registers") && strcmp(optarg, "pages"))
				return fail("--watch=%s: give auto, registers or pages", optarg);
			o->watch = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'F':
			o->no_follow = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		default:
			return cli_option_fail(WHO, WHO, "+o:qh", vals, argv);
		}
	}
	if (strcmp(o->craft, "dead") && strcmp(o->craft, "silent") && strcmp(o->craft, "load") &&
	    strcmp(o->craft, "share"))
		return fail("unknown craft '%s'; use --craft=dead, --craft=silent, --craft=load or "
			    "--craft=share", o->craft);
	if (!strcmp(o->craft, "share") && o->approx)
		return fail("--approx is the tolerance of the silent and load crafts' value "
			    "comparisons; --craft=share compares no values: drop --approx");
	if (!strcmp(o->craft, "share") && !strcmp(o->watch, "pages"))
		return fail("--craft=share watches for other threads' accesses, which page "
			    "protection cannot tell from the thread's own: drop --watch=pages");
	if (check_source(o))
		return 2;
	if (optind >= argc)
		return fail("no program given; usage: witch record [OPTIONS] -- PROGRAM [ARGS...]");
	return 0;
}

/* The timer's reach: --reach's, else the craft's default (core/contract.h). */
static long reach_of(const struct record_opts *o)
{
	if (o->source[0] == 'p')
		return 0;
	if (o->reach_given)
		return o->reach;
	return RECORD_DEFAULT_REACH_FOR(!strcmp(o->craft, "load"));
}

static void set_env(const char *lib, const char *outdir, const struct record_opts *o)
{
	const char *old = getenv("LD_PRELOAD");
	char buf[PATH_MAX * 2], num[32];

	snprintf(buf, sizeof(buf), "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
	setenv("LD_PRELOAD", buf, 1);
	setenv(ENV_CRAFT, o->craft, 1);
	setenv(ENV_OUT, outdir, 1);
	snprintf(num, sizeof(num), "%ld", o->rate);
	setenv(ENV_RATE, num, 1);
	snprintf(num, sizeof(num), "%ld", o->period);
	setenv(ENV_PERIOD, num, 1);
	/* --source=pmu draws nothing: the runtime takes spread 1 there. */
	snprintf(num, sizeof(num), "%ld", o->spread);
	setenv(ENV_SPREAD, num, 1);
	snprintf(num, sizeof(num), "%ld", reach_of(o));
	setenv(ENV_REACH, num, 1);
	snprintf(num, sizeof(num), "%d", o->registers ? o->registers : RECORD_MAX_REGISTERS);
	setenv(ENV_REGISTERS, num, 1);
	setenv(ENV_APPROX, o->approx ? o->approx : RECORD_DEFAULT_APPROX_TEXT, 1);
	setenv(ENV_WATCH, o->watch, 1);
	setenv(ENV_SOURCE, o->source, 1);
	if (o->no_follow)
		setenv(ENV_NO_FOLLOW, "1", 1);
	else
		unsetenv(ENV_NO_FOLLOW);
}

/*
 * Registers or pages (src/runtime/pagewatch.c). Sets o->watch to what the
 * run uses and *regs to the registers (or stand-ins) it may take.
 */
static int choose_watch(struct record_opts *o, int *regs)
{
	char err[1024], why[1024];

	*regs = 0;
	if (!strcmp(o->watch, "pages")) {
		if (perf_page_watch_ok(err, sizeof(err)) < 0)
			return fail("%s", err);
		*regs = 4;
		return 0;
	}
	*regs = perf_debug_registers(err, sizeof(err));
	if (*regs > 0) {
		o->watch = "registers";
		return 0;
	}
	if (!strcmp(o->watch, "registers"))
		return fail("%s; `witch spy` needs no debug registers", err);
	if (!strcmp(o->craft, "share"))
		return fail("%s; --craft=share needs them: page protection cannot tell one "
			    "thread's accesses from another's", err);
	if (perf_page_watch_ok(why, sizeof(why)) < 0)
		return fail("%s; and %s", err, why);
	if (!o->quiet)
		fprintf(stderr, WHO ": no usable debug registers (%s); watching with page protection "
				"and single steps instead (--watch=pages)\n", err);
	o->watch = "pages";
	*regs = 4;
	return 0;
}

int cmd_record(int argc, char **argv)
{
	char path[PATH_MAX], err[1024], lib[PATH_MAX], outdir[PATH_MAX], defdir[PATH_MAX];
	struct record_opts o;
	const char *base;
	uint64_t unsampled;
	int regs, status, rc;

	rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	argv += optind;
	if (cli_job_not_launcher(WHO, argv[0], err, sizeof(err)) < 0 ||
	    target_resolve(argv[0], path, sizeof(path), err, sizeof(err)) < 0 ||
	    target_preloadable(path, err, sizeof(err)) < 0)
		return fail("%s", err);
	if (witch_libdir(lib, sizeof(lib)) < 0 ||
	    (size_t)snprintf(lib + strlen(lib), sizeof(lib) - strlen(lib), "/libwitch.so") >=
		    sizeof(lib) - strlen(lib) ||
	    access(lib, R_OK) < 0)
		return fail("cannot find libwitch.so next to this witch (%s); reinstall witch", lib);
	if (!o.outdir) {
		base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
		snprintf(defdir, sizeof(defdir), "witch-%s-%s", base, o.craft);
		o.outdir = defdir;
	}
	if (outdir_check(WHO, o.outdir))
		return 2;
	/* The user's own mistakes (target, output directory) are reported
	 * before the machine's, which they cannot fix as easily. The PMU's
	 * samples need debug registers: no page protection stands in. */
	if (!strcmp(o.source, "pmu"))
		o.watch = "registers";
	if (choose_watch(&o, &regs))
		return 2;
	if (o.registers > regs)
		return fail("--registers asks for more debug registers than this machine has (%d)", regs);
	if (!strcmp(o.source, "pmu") &&
	    perf_memory_sampling_ok(strcmp(o.craft, "load") != 0, (uint64_t)o.period, err,
				    sizeof(err)) < 0)
		return fail("--source=pmu: %s; use the default --source=timer", err);
	if (!strcmp(o.watch, "pages") && (o.period ? o.period < 4000000 : o.rate > 250)) {
		if (!o.quiet)
			fprintf(stderr, WHO ": --watch=pages samples at most 250 times a second (the "
					"watch of each can cost a thousand page faults); sampling at 250 Hz\n");
		o.period = 0;
		o.rate = 250;
	}
	rc = outdir_prepare(WHO, o.outdir, outdir, sizeof(outdir));
	if (rc)
		return rc;
	set_env(lib, outdir, &o);
	status = launch_and_wait(path, argv, WHO);
	if (status < 0)
		return 127;
	rc = outdir_count_profiles(outdir, &unsampled);
	if (unsampled)
		fprintf(stderr, WHO ": warning: %llu thread%s not sampled (out of file descriptors "
				"for breakpoints: witch takes at most a quarter of `ulimit -n`)\n",
			(unsigned long long)unsampled, unsampled == 1 ? " was" : "s were");
	if (rc == 0)
		fprintf(stderr, WHO ": %s ended without writing a profile to %s (it may have been killed "
				"before witch could write, or used exec without exit)\n",
			argv[0], o.outdir);
	else if (!o.quiet)
		outdir_say_profiles(WHO, rc, o.outdir);
	exit_like(status);
}
