/*
 * cmd_spy.c - `witch spy`: run a program under Valgrind with witchspy, the
 * exhaustive DeadSpy/RedSpy/LoadSpy tool, and leave one profile per process
 * in the output directory. Slow (tens of times), exact: the ground truth
 * that `witch record`'s samples are compared with. The same tool finds
 * redundant computation by run-time value numbering (--tool=rvn), and
 * loops whose iterations read again what earlier ones read (--tool=loop,
 * Prometheus; the tool finds each module's loops with `witch loops`).
 *
 * Valgrind's messages stay in the output directory unless something went
 * wrong (valgrind.h). GLIBC_TUNABLES makes glibc pick the string routines it picks natively
 * under `witch record` (see tunables.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/number.h"
#include "cli/job.h"
#include "cli/outdir.h"
#include "cli/target.h"
#include "cli/tunables.h"
#include "cli/oneline.h"
#include "cli/optfail.h"
#include "cli/valgrind.h"
#include "core/contract.h"

#define WHO "witch spy"
/* A contract value in the usage text. */
#define TEXT_(x) #x
#define TEXT(x) TEXT_(x)

static const char usage_text[] =
	"usage: witch spy [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Runs PROGRAM under Valgrind with witchspy, which judges every access\n"
	"(exhaustive, 10-50x slower), and writes one profile per process into the\n"
	"output directory (earlier profiles there are replaced).\n"
	"\n"
	"  --tool=dead|silent|load|rvn|loop\n"
	"                           DeadSpy: stores overwritten unread (default);\n"
	"                           RedSpy: stores writing the bytes already there;\n"
	"                           LoadSpy: loads returning the bytes loaded before;\n"
	"                           RVN: computations, loads and stores redundant\n"
	"                           with earlier ones (run-time value numbering);\n"
	"                           loop: loops whose iterations read the values\n"
	"                           earlier iterations read (the loops are found in\n"
	"                           the machine code, their maps kept in DIR/cfg)\n"
	"  --by=symbol|value        rvn: number values by symbol (default) or by value\n"
	"  --history=N              rvn --by=value: compare with an instruction's last N\n"
	"                           results (1 to " TEXT(RVN_HISTORY_MAX) ", default "
	TEXT(RVN_HISTORY_DEFAULT) ")\n"
	"  --burst=ON,OFF           rvn: judge ON million instructions, then run OFF\n"
	"                           million unjudged, and again (the thesis: 100,1000)\n"
	"  --thresholds=A,R,RI      loop: an iteration of A reads or more is data-\n"
	"                           intensive, redundant when R of its reads were read\n"
	"                           before; a loop is flagged when RI of its data-\n"
	"                           intensive iterations are redundant (R, RI: 0.9 or\n"
	"                           90%; default " TEXT(LOOP_A_DEFAULT) "," TEXT(LOOP_R_DEFAULT) ","
	TEXT(LOOP_RI_DEFAULT) ")\n"
	"  --exact-parts            loop: judge each part of an 8-byte word by when it\n"
	"                           was read (a column of a byte or int matrix read\n"
	"                           one element an iteration), not by when the word\n"
	"                           was; slower where programs read bytes in short\n"
	"                           loops\n"
	"  -o, --output=DIR         output directory (default witch-PROGRAM-TOOLspy,\n"
	"                           witch-PROGRAM-rvn, witch-PROGRAM-loop)\n"
	"  --approx=X               relative tolerance for floating-point values\n"
	"                           (silent, load; default 0.01, 0 compares exactly)\n"
	"  --stack=keep|clear       keep (default, like witch record's watchpoints)\n"
	"                           or forget the history of returned stack frames\n"
	"  --no-follow              profile only PROGRAM's own process, not the\n"
	"                           programs it runs (exec) or the children it forks\n"
	"  -v, --verbose            show Valgrind's messages\n"
	"  -q, --quiet              no progress line (on a terminal), no summary line\n";

/* What --tool names, and the default output directory's last word. */
struct spy_tool {
	const char *name;
	const char *dir;
};

static const struct spy_tool tools[] = {
	{ "dead", "deadspy" },
	{ "silent", "redspy" },
	{ "load", "loadspy" },
	{ "rvn", "rvn" },
	{ "loop", "loop" },
};

struct spy_opts {
	const struct spy_tool *tool;
	const char *outdir;
	const char *approx;
	const char *stack;
	const char *by;		/* rvn: "symbol" (default) or "value"; others: NULL */
	long history;		/* rvn --by=value: 0 when not given */
	long burst_on, burst_off;	/* rvn --burst, millions of instructions; 0: none */
	const char *thresholds;	/* --thresholds as given, NULL: none */
	long reads;		/* loop: A, R and RI of --thresholds */
	double ratio, iter_ratio;
	int exact_parts;	/* loop --exact-parts */
	int no_follow, verbose, quiet;
};

/* One line on stderr, whatever the paths it quotes hold (cli/oneline.h). */
#define fail(...) cli_fail(WHO, 2, __VA_ARGS__)

static const struct spy_tool *find_tool(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (!strcmp(tools[i].name, name))
			return &tools[i];
	return NULL;
}

/* --burst=ON,OFF */
static int parse_burst(const char *v, struct spy_opts *o)
{
	char on[32];
	const char *comma = strchr(v, ',');

	if (!comma || (size_t)(comma - v) >= sizeof(on))
		return -1;
	memcpy(on, v, (size_t)(comma - v));
	on[comma - v] = 0;
	if (cli_long(on, 1, RVN_BURST_MAX, &o->burst_on) || cli_long(comma + 1, 1, RVN_BURST_MAX, &o->burst_off))
		return -1;
	return 0;
}

/* A share of --thresholds: 0.9 or 90%, above 0 and at most 1. */
static int parse_share(const char *s, size_t n, double *out)
{
	char buf[64], *end;
	int percent;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	percent = buf[n - 1] == '%';
	if (percent)
		buf[--n] = 0;
	/* Digits and a point only: no sign, spaces, exponent, inf or nan. */
	if (!n || strspn(buf, "0123456789.") != n)
		return -1;
	errno = 0;
	*out = strtod(buf, &end);
	if (*end || errno)
		return -1;
	if (percent)
		*out /= 100;
	return *out > 0 && *out <= 1 ? 0 : -1;
}

/* --thresholds=A,R,RI */
static int parse_thresholds(const char *v, struct spy_opts *o)
{
	const char *c1 = strchr(v, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
	char reads[32];

	if (!c2 || (size_t)(c1 - v) >= sizeof(reads))
		return -1;
	memcpy(reads, v, (size_t)(c1 - v));
	reads[c1 - v] = 0;
	if (cli_long(reads, 1, LOOP_A_MAX, &o->reads) ||
	    parse_share(c1 + 1, (size_t)(c2 - c1 - 1), &o->ratio) ||
	    parse_share(c2 + 1, strlen(c2 + 1), &o->iter_ratio))
		return -1;
	o->thresholds = v;
	return 0;
}

/* The options that belong to one tool, checked once all are known. */
static int check_tool_options(const struct spy_opts *o, const char *tool)
{
	if (!o->tool)
		return fail("unknown tool '%s'; use --tool=dead, --tool=silent, --tool=load, "
			    "--tool=rvn or --tool=loop", tool);
	if (o->by && strcmp(o->tool->name, "rvn"))
		return fail("--by=%s applies to --tool=rvn, not --tool=%s", o->by, o->tool->name);
	if (o->history && (!o->by || strcmp(o->by, "value")))
		return fail("--history=%ld applies to --tool=rvn --by=value only", o->history);
	if (o->burst_on && strcmp(o->tool->name, "rvn"))
		return fail("--burst applies to --tool=rvn, not --tool=%s", o->tool->name);
	if (o->thresholds && strcmp(o->tool->name, "loop"))
		return fail("--thresholds applies to --tool=loop, not --tool=%s", o->tool->name);
	if (o->exact_parts && strcmp(o->tool->name, "loop"))
		return fail("--exact-parts applies to --tool=loop, not --tool=%s", o->tool->name);
	return 0;
}

static int parse(int argc, char **argv, struct spy_opts *o)
{
	static const struct option longopts[] = {
		{ "tool", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "approx", required_argument, NULL, 'a' },
		{ "stack", required_argument, NULL, 's' },
		{ "by", required_argument, NULL, 'b' },
		{ "history", required_argument, NULL, 'H' },
		{ "burst", required_argument, NULL, 'B' },
		{ "thresholds", required_argument, NULL, 'T' },
		{ "exact-parts", no_argument, NULL, 'P' },
		{ "no-follow", no_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cli_optval vals[] = {
		CLI_OPTVAL_OUTPUT,
		{ 'T', "three thresholds (--thresholds=A,R,RI)" },
		{ 0, NULL },
	};
	const char *tool = "dead";
	char *end;
	double x;
	int c;

	memset(o, 0, sizeof(*o));
	o->reads = LOOP_A_DEFAULT;
	o->ratio = LOOP_R_DEFAULT;
	o->iter_ratio = LOOP_RI_DEFAULT;
	opterr = 0;
	/* "+": stop at the program name, its options are its own. */
	while ((c = getopt_long(argc, argv, "+o:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			tool = optarg;
			break;
		case 'o':
			o->outdir = optarg;
			break;
		case 'a':
			errno = 0;
			x = strtod(optarg, &end);
			if (!*optarg || *end || errno || !(x >= 0 && x < 1))
				return fail("--approx=%s is not a tolerance; give a relative difference "
					    "from 0 to below 1, such as 0.01", optarg);
			o->approx = optarg;
			break;
		case 's':
			if (strcmp(optarg, "keep") && strcmp(optarg, "clear"))
				return fail("--stack=%s is not a choice; use --stack=keep or --stack=clear",
					    optarg);
			o->stack = optarg;
			break;
		case 'b':
			if (strcmp(optarg, "symbol") && strcmp(optarg, "value"))
				return fail("--by=%s is not a choice; use --by=symbol or --by=value", optarg);
			o->by = optarg;
			break;
		case 'H':
			if (cli_long(optarg, 1, RVN_HISTORY_MAX, &o->history))
				return fail("--history=%s is not a history length; give a whole number "
					    "from 1 to %d", optarg, RVN_HISTORY_MAX);
			break;
		case 'B':
			if (parse_burst(optarg, o) < 0)
				return fail("--burst=%s is not ON,OFF; give two whole numbers of millions "
					    "of instructions from 1 to %d, as --burst=100,1000", optarg,
					    RVN_BURST_MAX);
			break;
		case 'T':
			if (parse_thresholds(optarg, o) < 0)
				return fail("--thresholds=%s is not A,R,RI; give a whole number of reads "
					    "(1 or more) and two shares above 0 and at most 1 (0.9 or 90%%), "
					    "as --thresholds=" TEXT(LOOP_A_DEFAULT) "," TEXT(LOOP_R_DEFAULT) ","
					    TEXT(LOOP_RI_DEFAULT), optarg);
			break;
		case 'P':
			o->exact_parts = 1;
			break;
		case 'F':
			o->no_follow = 1;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		default:
			return cli_option_fail(WHO, WHO, "+o:vqh", vals, argv);
		}
	}
	o->tool = find_tool(tool);
	if (check_tool_options(o, tool))
		return 2;
	if (!strcmp(o->tool->name, "rvn") && !o->by)
		o->by = "symbol";
	if (optind >= argc)
		return fail("no program given; usage: witch spy [OPTIONS] -- PROGRAM [ARGS...]");
	return 0;
}

/* Valgrind runs x86-64 ELF programs (static ones too) and #! scripts. */
static int check_target(const char *path, char *err, size_t errlen)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		snprintf(err, errlen, "cannot read %.900s: %s", path, strerror(errno));
		return -1;
	}
	n = pread(fd, h, sizeof(h), 0);
	close(fd);
	if (n >= 2 && h[0] == '#' && h[1] == '!')
		return 0;
	if (n < 20 || memcmp(h, "\177ELF", 4)) {
		snprintf(err, errlen, "%.900s is neither an ELF program nor a #! script", path);
		return -1;
	}
	if (h[4] != 2 || h[18] != 62 /* EM_X86_64 */) {
		snprintf(err, errlen, "%.900s is not an x86-64 ELF program; witch measures x86-64 Linux "
			 "binaries", path);
		return -1;
	}
	return 0;
}

/* The loop tool's options: where each module's loop map goes (DIR/cfg,
 * kept from run to run: a map is of one file by one witch), and the witch
 * that writes them. 0, or 2 after one line. */
static int loop_options(const char *outdir, char *a_loops, size_t cap_loops, char *a_finder,
			size_t cap_finder)
{
	char self[PATH_MAX];

	if ((size_t)snprintf(a_loops, cap_loops, "--witch-loops=%s/cfg", outdir) >= cap_loops)
		return fail("output directory path too long: %s", outdir);
	if (mkdir(a_loops + strlen("--witch-loops="), 0777) && errno != EEXIST)
		return fail("cannot make %s: %s", a_loops + strlen("--witch-loops="), strerror(errno));
	if (witch_self(self, sizeof(self)) ||
	    (size_t)snprintf(a_finder, cap_finder, "--witch-loop-finder=%s", self) >= cap_finder)
		return fail("cannot find this witch's own path (/proc/self/exe)");
	return 0;
}

int cmd_spy(int argc, char **argv)
{
	char path[PATH_MAX], err[1024], outdir[PATH_MAX], defdir[PATH_MAX], valgrind[PATH_MAX];
	char a_tool[64], a_approx[64], a_history[64], a_burst[64], a_thresholds[128];
	char a_loops[PATH_MAX + 32], a_finder[PATH_MAX + 32];
	/* The tool, --approx, --stack, --by, --history, --burst and one
	 * Valgrind option (unrolling or sectors), or the loop maps, their
	 * finder, the thresholds and --exact-parts; and the end. */
	const char *opts[12] = { a_tool };
	char **vargv;
	struct spy_opts o;
	const char *base, *progress;
	int status, rc, n = 1;

	rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	/* Not over Valgrind's own messages either (--verbose). */
	progress = o.quiet || o.verbose ? NULL : WHO;
	argv += optind;
	argc -= optind;
	if (cli_job_not_launcher(WHO, argv[0], err, sizeof(err)) < 0 ||
	    target_resolve(argv[0], path, sizeof(path), err, sizeof(err)) < 0 ||
	    check_target(path, err, sizeof(err)) < 0)
		return fail("%s", err);
	if (vg_find(WHO, valgrind, sizeof(valgrind)) < 0)
		return 2;
	if (!o.outdir) {
		base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
		snprintf(defdir, sizeof(defdir), "witch-%s-%s", base, o.tool->dir);
		o.outdir = defdir;
	}
	rc = outdir_prepare(WHO, o.outdir, outdir, sizeof(outdir));
	if (rc)
		return rc;
	/* The same glibc routines as `witch record` runs natively. */
	set_glibc_tunables();

	snprintf(a_tool, sizeof(a_tool), "--witch-tool=%s", o.tool->name);
	if (o.approx) {
		snprintf(a_approx, sizeof(a_approx), "--witch-approx=%s", o.approx);
		opts[n++] = a_approx;
	}
	if (o.stack)
		opts[n++] = !strcmp(o.stack, "clear") ? "--witch-stack=clear" : "--witch-stack=keep";
	if (o.by)
		opts[n++] = !strcmp(o.by, "value") ? "--witch-by=value" : "--witch-by=symbol";
	if (o.history) {
		snprintf(a_history, sizeof(a_history), "--witch-history=%ld", o.history);
		opts[n++] = a_history;
	}
	if (o.burst_on) {
		snprintf(a_burst, sizeof(a_burst), "--witch-burst=%ld,%ld", o.burst_on, o.burst_off);
		opts[n++] = a_burst;
	}
	/* Valgrind unrolls a small loop and then keeps one copy of what the
	 * copies compute alike: rvn would see one loop-invariant product in
	 * four. Bursts, an estimate kept cheap, leave it be (docs/spy.md). */
	if (!strcmp(o.tool->name, "rvn") && !o.burst_on)
		opts[n++] = "--vex-iropt-unroll-thresh=0";
	/* Each switch of phase discards every translation, but Valgrind
	 * reuses their space only when it recycles the whole sector holding
	 * them: with its 32 sectors, many bursts filled 800 MB with dead code
	 * (docs/spy.md). Two, the fewest it takes, leave one (30 MB of code)
	 * to one phase's live code. */
	if (!strcmp(o.tool->name, "rvn") && o.burst_on)
		opts[n++] = "--num-transtab-sectors=2";
	if (!strcmp(o.tool->name, "loop")) {
		/* Shares as decimals ("90%" is 0.9): the tool reads no percent. */
		if (loop_options(outdir, a_loops, sizeof(a_loops), a_finder, sizeof(a_finder)))
			return 2;
		snprintf(a_thresholds, sizeof(a_thresholds), "--witch-thresholds=%ld,%.15g,%.15g",
			 o.reads, o.ratio, o.iter_ratio);
		opts[n++] = a_loops;
		opts[n++] = a_finder;
		opts[n++] = a_thresholds;
		if (o.exact_parts)
			opts[n++] = "--witch-exact-parts=yes";
	}
	vargv = vg_argv(opts, outdir, o.no_follow, o.verbose, progress, path, argc, argv);
	if (!vargv)
		return fail("out of memory");
	status = launch_and_wait(valgrind, vargv, WHO);
	vg_argv_free(vargv);
	if (status < 0)
		return 127;
	rc = o.verbose ? 0 : vg_diagnose(WHO, argv[0], outdir, status);
	if (rc == 1)
		return 2;
	if (rc == 0 && outdir_count_profiles(outdir, NULL) > 0)
		vg_remove_logs(outdir);	/* nothing worth keeping */
	rc = outdir_count_profiles(outdir, NULL);
	if (rc == 0) {
		fprintf(stderr, WHO ": %s ended without writing a profile to %s (killed before Valgrind "
				"could write it?)%s\n", argv[0], o.outdir, o.verbose ? "" : "; Valgrind said:");
		if (!o.verbose)
			vg_show_logs(outdir);
	} else if (!o.quiet) {
		outdir_say_profiles(WHO, rc, o.outdir);
	}
	exit_like(status);
}
