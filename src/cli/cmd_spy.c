/*
 * cmd_spy.c - `witch spy`: run a program under Valgrind with witchspy, the
 * exhaustive DeadSpy/RedSpy/LoadSpy tool, and leave one profile per process
 * in the output directory. Slow (tens of times), exact: the ground truth
 * that `witch record`'s samples are compared with.
 *
 * Valgrind's own messages go to a log file in the output directory and are
 * shown only when something went wrong (or with --verbose), so the
 * program's stdin, stdout, stderr and exit status pass through unchanged.
 * GLIBC_TUNABLES makes glibc pick the string routines it picks natively
 * under `witch record` (see tunables.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/outdir.h"
#include "cli/target.h"
#include "cli/tunables.h"
#include "cli/oneline.h"

#define WHO "witch spy"
#define TOOL_FILE "witchspy-amd64-linux"
/* valgrind-PID.log: outdir_prepare removes them with old profiles. */
#define LOG_PREFIX "valgrind-"
#define LOG_SUFFIX ".log"

static const char usage_text[] =
	"usage: witch spy [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Runs PROGRAM under Valgrind with witchspy, which judges every access\n"
	"(exhaustive, 10-50x slower), and writes one profile per process into the\n"
	"output directory (earlier profiles there are replaced).\n"
	"\n"
	"  --tool=dead|silent|load  DeadSpy: stores overwritten unread (default);\n"
	"                           RedSpy: stores writing the bytes already there;\n"
	"                           LoadSpy: loads returning the bytes loaded before\n"
	"  -o, --output=DIR         output directory (default witch-PROGRAM-TOOLspy)\n"
	"  --approx=X               relative tolerance for floating-point values\n"
	"                           (silent, load; default 0.01, 0 compares exactly)\n"
	"  --stack=keep|clear       keep (default, like witch record's watchpoints)\n"
	"                           or forget the history of returned stack frames\n"
	"  -v, --verbose            show Valgrind's messages\n"
	"  -q, --quiet              no summary line after the run\n";

struct spy_opts {
	const char *tool;
	const char *outdir;
	const char *approx;
	const char *stack;
	int verbose, quiet;
};

/* One line on stderr, whatever the paths it quotes hold (cli/oneline.h). */
#define fail(...) cli_fail(WHO, 2, __VA_ARGS__)

static int parse(int argc, char **argv, struct spy_opts *o)
{
	static const struct option longopts[] = {
		{ "tool", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "approx", required_argument, NULL, 'a' },
		{ "stack", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	double x;
	int c;

	memset(o, 0, sizeof(*o));
	o->tool = "dead";
	opterr = 0;
	/* "+": stop at the program name, its options are its own. */
	while ((c = getopt_long(argc, argv, "+o:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			o->tool = optarg;
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
			return fail("unknown option '%s'; see `witch spy --help`", argv[optind - 1]);
		}
	}
	if (strcmp(o->tool, "dead") && strcmp(o->tool, "silent") && strcmp(o->tool, "load"))
		return fail("unknown tool '%s'; use --tool=dead, --tool=silent or --tool=load", o->tool);
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

/* The tool lives in witch's library directory, with the Valgrind files it needs. */
static int find_tool_dir(char *dir, size_t cap)
{
	char tool[PATH_MAX + 64];

	if (witch_libdir(dir, cap) < 0)
		return -1;
	snprintf(tool, sizeof(tool), "%s/" TOOL_FILE, dir);
	return access(tool, X_OK);
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

static void show_logs(const char *dir)
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

/* Valgrind's verdict on a run, from its log, in one line: 1 when it could
 * not run the program, 2 after a warning, 0 if all went well. */
static int diagnose(const char *prog, const char *outdir, int status)
{
	char line[1024];

	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGILL &&
	    log_line(outdir, "unhandled instruction bytes", line, sizeof(line))) {
		fprintf(stderr, WHO ": Valgrind cannot run %s: it uses an instruction Valgrind does not "
				"know (%s; AVX-512 is not supported) - build it without that instruction "
				"set (e.g. -march=x86-64-v3) to spy on it\n",
			prog, line);
		return 1;
	}
	if (log_line(outdir, "the 'impossible' happened", line, sizeof(line)) ||
	    log_line(outdir, "Valgrind: FATAL", line, sizeof(line)) ||
	    log_line(outdir, "valgrind: ", line, sizeof(line)) ||
	    log_line(outdir, "Assertion", line, sizeof(line))) {
		fprintf(stderr, WHO ": Valgrind failed while running %s: %s (full log in %s/"
				LOG_PREFIX "*" LOG_SUFFIX ")\n", prog, line, outdir);
		return 1;
	}
	if (log_line(outdir, "unhandled amd64-linux syscall", line, sizeof(line))) {
		fprintf(stderr, WHO ": warning: %s made a system call Valgrind does not support and got "
				"ENOSYS for it (%s)\n", prog, line);
		return 2;
	}
	return 0;
}

int cmd_spy(int argc, char **argv)
{
	char path[PATH_MAX], err[1024], tooldir[PATH_MAX], outdir[PATH_MAX], defdir[PATH_MAX];
	char valgrind[PATH_MAX], a_tool[64], a_out[PATH_MAX + 16], a_log[2 * PATH_MAX + 64];
	char a_approx[64];
	char **vargv;
	struct spy_opts o;
	const char *base;
	int status, rc, i, n;

	rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	argv += optind;
	argc -= optind;
	if (target_resolve(argv[0], path, sizeof(path), err, sizeof(err)) < 0 ||
	    check_target(path, err, sizeof(err)) < 0)
		return fail("%s", err);
	if (target_resolve("valgrind", valgrind, sizeof(valgrind), err, sizeof(err)) < 0)
		return fail("valgrind is not installed (not in PATH); witch spy runs programs under it: "
			    "install it (apt-get install valgrind)");
	if (find_tool_dir(tooldir, sizeof(tooldir)) < 0)
		return fail("cannot find " TOOL_FILE " in %s; rebuild or reinstall witch", tooldir);
	if (!o.outdir) {
		base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
		snprintf(defdir, sizeof(defdir), "witch-%s-%sspy", base,
			 !strcmp(o.tool, "dead") ? "dead" : !strcmp(o.tool, "silent") ? "red" : "load");
		o.outdir = defdir;
	}
	rc = outdir_prepare(WHO, o.outdir, outdir, sizeof(outdir));
	if (rc)
		return rc;
	setenv("VALGRIND_LIB", tooldir, 1);
	/* The same glibc routines as `witch record` runs natively. */
	set_glibc_tunables();

	vargv = calloc((size_t)argc + 16, sizeof(*vargv));
	if (!vargv)
		return fail("out of memory");
	n = 0;
	vargv[n++] = "valgrind";
	vargv[n++] = "--tool=witchspy";
	snprintf(a_tool, sizeof(a_tool), "--witch-tool=%s", o.tool);
	vargv[n++] = a_tool;
	snprintf(a_out, sizeof(a_out), "--witch-out=%s", outdir);
	vargv[n++] = a_out;
	if (o.approx) {
		snprintf(a_approx, sizeof(a_approx), "--witch-approx=%s", o.approx);
		vargv[n++] = a_approx;
	}
	if (o.stack)
		vargv[n++] = !strcmp(o.stack, "clear") ? "--witch-stack=clear" : "--witch-stack=keep";
	/* Children and exec'd programs are profiled too, as with witch record. */
	vargv[n++] = "--trace-children=yes";
	vargv[n++] = "--vgdb=no";
	if (o.verbose) {
		vargv[n++] = "-v";
	} else {
		/* Per process: traced children write their own. Valgrind expands
		 * %p in the name, and reads %% as a '%' of the directory's. */
		size_t k = (size_t)snprintf(a_log, sizeof(a_log), "--log-file=");
		const char *q;

		for (q = outdir; *q && k + 2 < sizeof(a_log) - 32; q++) {
			if (*q == '%')
				a_log[k++] = '%';
			a_log[k++] = *q;
		}
		snprintf(a_log + k, sizeof(a_log) - k, "/" LOG_PREFIX "%%p" LOG_SUFFIX);
		vargv[n++] = a_log;
	}
	vargv[n++] = "--";
	vargv[n++] = path;
	for (i = 1; i < argc; i++)
		vargv[n++] = argv[i];
	vargv[n] = NULL;

	status = launch_and_wait(valgrind, vargv, WHO);
	free(vargv);
	if (status < 0)
		return 127;
	rc = o.verbose ? 0 : diagnose(argv[0], outdir, status);
	if (rc == 1)
		return 2;
	if (rc == 0 && outdir_count_profiles(outdir, NULL) > 0)
		outdir_remove(outdir, outdir_is_valgrind_log);	/* nothing worth keeping */
	rc = outdir_count_profiles(outdir, NULL);
	if (rc == 0) {
		fprintf(stderr, WHO ": %s ended without writing a profile to %s (killed before Valgrind "
				"could write it?)%s\n", argv[0], o.outdir, o.verbose ? "" : "; Valgrind said:");
		if (!o.verbose)
			show_logs(outdir);
	} else if (!o.quiet) {
		fprintf(stderr, WHO ": %d profile%s in %s; see them with: witch report %s\n", rc,
			rc == 1 ? "" : "s", o.outdir, o.outdir);
	}
	exit_like(status);
}
