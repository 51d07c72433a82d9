/*
 * test_causal_lines.c - the line table witch causal hands to its runtime
 * (src/cli/causal_lines.c), from programs compiled here with DWARF 5 and
 * DWARF 4: sorted disjoint ranges, inlined code from an out-of-scope
 * header charged to its call site, FILE:LINE resolution and its errors.
 */
#include "tap.h"
#include "cli/causal_lines.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/witch-causal-lines.XXXXXX";

static const char helper_h[] =
	"static inline double helper(double v)\n"
	"{\n"
	"\treturn v * 1.0001 + 0.5;\n"	/* line 3 */
	"}\n";

static const char main_c[] =
	"#include <stdio.h>\n"
	"#include \"helper.h\"\n"
	"volatile double x;\n"
	"/* no code on this line */\n"	/* line 4 */
	"__attribute__((noinline)) static void work(int n)\n"
	"{\n"
	"\tfor (int i = 0; i < n; i++)\n"
	"\t\tx = helper(x);\n"	/* line 8: the call site */
	"}\n"
	"\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\t(void)argv;\n"
	"\tfor (int k = 0; k < argc; k++)\n"
	"\t\twork(1000);\n"	/* line 15 */
	"\tprintf(\"%f\\n\", x);\n"
	"\treturn 0;\n"
	"}\n";

static int write_file(const char *name, const char *body)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(body, f);
	return fclose(f);
}

static int compile(const char *out, const char *flags)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "cd %s && cc -O2 %s -o %s main.c 2>&1", dir, flags, out);
	return system(cmd);
}

static int build(struct causal_lines *t, const char *bin, const char *scope, char *err, size_t n)
{
	char path[256];
	char *sc[1];

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/%s", dir, bin);
	sc[0] = (char *)scope;
	if (causal_lines_set_scope(t, sc, scope ? 1 : 0))
		return -1;
	return causal_lines_add_module(t, path, err, n) || causal_lines_finish(t, err, n) ? -1 : 0;
}

static int sorted_disjoint(const struct causal_lines *t)
{
	size_t i, j;

	for (i = 0; i < t->nmods; i++)
		for (j = 0; j < t->mods[i].nranges; j++) {
			const struct causal_range *r = &t->mods[i].ranges[j];

			if (r->start >= r->end || r->line >= t->nlines)
				return 0;
			if (j && r->start < t->mods[i].ranges[j - 1].end)
				return 0;
		}
	return causal_lines_nranges(t) > 0;
}

/* The id of the line whose location ends with suffix, or -1. */
static long line_ending(const struct causal_lines *t, const char *suffix)
{
	size_t i, n = strlen(suffix);

	for (i = 0; i < t->nlines; i++) {
		const char *s = t->locs.strs[i];
		size_t m = strlen(s);

		if (m >= n && !strcmp(s + m - n, suffix))
			return (long)i;
	}
	return -1;
}

static const char *function_of(const struct causal_lines *t, long id)
{
	return id < 0 || t->lines[id].function == UINT32_MAX ? NULL
							    : t->files.strs[t->lines[id].function];
}

static void test_binary(const char *bin, const char *what)
{
	struct causal_lines t;
	char err[2048] = "", *out = NULL;
	size_t outlen = 0;
	long id;
	FILE *f;

	tap_ok(build(&t, bin, NULL, err, sizeof(err)) == 0, "%s: reads (%s)", what, err);
	tap_ok(sorted_disjoint(&t), "%s: ranges are sorted, disjoint and name lines", what);
	id = line_ending(&t, "/helper.h:3");
	tap_ok(id >= 0 && function_of(&t, id) && !strcmp(function_of(&t, id), "helper"),
	       "%s: by default the header's inlined line is its own, in helper()", what);
	tap_ok(line_ending(&t, "/main.c:8") >= 0 && line_ending(&t, "/main.c:4") < 0,
	       "%s: main.c:8 has code, the comment line 4 has none", what);
	tap_ok(causal_lines_add_progress(&t, "main.c:15", err, sizeof(err)) == 0 && t.nbps == 1 &&
		       t.bps[0].addr > 0,
	       "%s: --progress=main.c:15 resolves to an address", what);
	tap_ok(causal_lines_add_progress(&t, "main.c:4", err, sizeof(err)) < 0 &&
		       strstr(err, "main.c:4 has no code; the nearest line"),
	       "%s: a line without code: '%s'", what, err);
	tap_ok(causal_lines_add_progress(&t, "nosuch.c:3", err, sizeof(err)) < 0 &&
		       strstr(err, "no source file 'nosuch.c'"),
	       "%s: an unknown file: '%s'", what, err);
	tap_ok(causal_lines_add_progress(&t, "main.c", err, sizeof(err)) < 0 &&
		       strstr(err, "is not FILE:LINE"), "%s: not FILE:LINE: '%s'", what, err);
	f = open_memstream(&out, &outlen);
	causal_lines_write(&t, f);
	fclose(f);
	tap_ok(out && !strncmp(out, "witch-causal-lines\t1\nmodule\t0\t/", 31) &&
		       strstr(out, "\nrange\t0\t") && strstr(out, "\nprogress\t0\t") &&
		       strstr(out, "/main.c:15\n"),
	       "%s: the table's text has the contract's records", what);
	free(out);
	causal_lines_free(&t);

	tap_ok(build(&t, bin, "main.c", err, sizeof(err)) == 0, "%s: --scope=main.c reads (%s)",
	       what, err);
	id = line_ending(&t, "/main.c:8");
	tap_ok(line_ending(&t, "/helper.h:3") < 0 && id >= 0 && function_of(&t, id) &&
		       !strcmp(function_of(&t, id), "work"),
	       "%s: with the header out of scope, its code is charged to main.c:8 in work()",
	       what);
	tap_ok(sorted_disjoint(&t), "%s: still sorted and disjoint", what);
	{
		uint32_t lid;

		tap_ok(causal_lines_find_line(&t, "helper.h:3", &lid, err, sizeof(err)) < 0 &&
			       strstr(err, "outside the causal scope"),
		       "%s: --line on an out-of-scope line: '%s'", what, err);
		tap_ok(causal_lines_find_line(&t, "main.c:8", &lid, err, sizeof(err)) == 0 &&
			       (long)lid == id, "%s: --line=main.c:8 finds its id", what);
	}
	causal_lines_free(&t);
	tap_ok(build(&t, bin, "other.c", err, sizeof(err)) < 0 &&
		       strstr(err, "--scope=other.c matches no source file"),
	       "%s: a scope matching nothing: '%s'", what, err);
	causal_lines_free(&t);
}

int main(void)
{
	struct causal_lines t;
	char err[2048];
	char cmd[300];

	tap_ok(causal_system_path("/usr/include/stdio.h") && causal_system_path("<built-in>") &&
		       !causal_system_path("/home/me/app.c") && !causal_system_path("/usr/src/app/main.c"),
	       "system paths are out of the default scope, projects are in");
	tap_ok(causal_path_matches("app.c", "/home/me/src/app.c") &&
		       causal_path_matches("src/app.c", "/home/me/src/app.c") &&
		       causal_path_matches("src/*.c", "/home/me/src/app.c") &&
		       !causal_path_matches("pp.c", "/home/me/src/app.c"),
	       "scope patterns match whole trailing components");
	if (!mkdtemp(dir) || write_file("helper.h", helper_h) || write_file("main.c", main_c) ||
	    compile("app5", "-gdwarf-5") || compile("app4", "-gdwarf-4") || compile("app0", "")) {
		tap_ok(0, "cannot compile the test programs in %s", dir);
		return tap_done();
	}
	test_binary("app5", "DWARF 5");
	test_binary("app4", "DWARF 4");
	memset(&t, 0, sizeof(t));
	snprintf(cmd, sizeof(cmd), "%s/app0", dir);
	tap_ok(causal_lines_set_scope(&t, NULL, 0) == 0 &&
		       causal_lines_add_module(&t, cmd, err, sizeof(err)) < 0 &&
		       strstr(err, "has no debug information; rebuild it with -g"),
	       "without -g: '%s'", err);
	causal_lines_free(&t);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		tap_diag("could not remove %s", dir);
	return tap_done();
}
