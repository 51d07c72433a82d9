/*
 * test_causal_lines.c - the line table witch causal hands to its runtime
 * (src/cli/causal_lines.c), from programs compiled here with DWARF 5 and
 * DWARF 4: sorted disjoint ranges, inlined code from an out-of-scope
 * header charged to its call site, FILE:LINE resolution and its errors;
 * where --progress counts lines an -O2 build spreads out (gcc and clang).
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

/* Lines --progress must find the visits of, at -O2 (see "Which addresses
 * --progress counts" in docs/causal.md), each marked. */
static const char places_c[] =
	"#include <stdio.h>\n"
	"__attribute__((noinline)) double spin(long n, double k)\n"
	"{\n"
	"\tdouble s = 0;\n"
	"\tfor (volatile long i = 0; i < n; i++)\n"
	"\t\ts += k;\n"
	"\treturn s;\n"
	"}\n"
	"static inline double helper(double v)\n"
	"{\n"
	"\treturn spin(100, v) * 0.5;\t/* HELPER */\n"
	"}\n"
	"static inline double many(double v)\n"
	"{\n"
	"\treturn spin(50, v) + 1.0;\t/* MANY */\n"
	"}\n"
	"__attribute__((noinline)) double hoisted(long rounds)\n"
	"{\n"
	"\tdouble t = 0;\n"
	"\n"
	"\tfor (long r = 0; r < rounds; r++) {\n"
	"\t\tt += spin(100, 1.0);\n"
	"\t\tif (t < -1) puts(\"never\");\t/* HOISTED */\n"
	"\t}\n"
	"\treturn t;\n"
	"}\n"
	"__attribute__((noinline)) double twice(long rounds)\n"
	"{\n"
	"\tdouble t = 0;\n"
	"\n"
	"\tfor (long r = 0; r < rounds; r++)\n"
	"\t\tt += helper(t) - helper(1.0);\n"
	"\treturn t;\n"
	"}\n"
	"__attribute__((noinline)) double five(long rounds)\n"
	"{\n"
	"\tdouble t = 0;\n"
	"\n"
	"\tfor (long r = 0; r < rounds; r++)\n"
	"\t\tt += many(t) * many(1.0) - many(2.0) / many(3.0) + many(4.0);\n"
	"\treturn t;\n"
	"}\n"
	"__attribute__((noinline)) double header(long rounds)\n"
	"{\n"
	"\tdouble t = 0;\n"
	"\n"
	"\tfor (long r = 0; r < rounds; r++)\t/* HEADER */\n"
	"\t\tt += spin(100, (double)r);\n"
	"\treturn t;\n"
	"}\n"
	"__attribute__((noinline)) double jumps(long rounds)\n"
	"{\n"
	"\tdouble t = 0;\n"
	"\n"
	"\tfor (long r = 0; r < rounds; r++) {\n"
	"\t\tif (r & 1)\n"
	"\t\t\tgoto mid;\n"
	"\t\tt += spin(100, 1.0); mid: t += spin(100, 2.0);\t/* AGAIN */\n"
	"\t}\n"
	"\treturn t;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\t(void)argv;\n"
	"\tprintf(\"%f\\n\", hoisted(argc) + twice(argc) + five(argc) + header(argc) + jumps(argc));\n"
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

static int compile(const char *cc, const char *out, const char *flags, const char *src)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "cd %s && %s -O2 %s -o %s %s 2>&1", dir, cc, flags, out, src);
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

/* "places.c:N" for the line of places_c holding marker. */
static const char *spec_of(const char *marker)
{
	static char spec[64];
	const char *p = strstr(places_c, marker), *q;
	int line = 1;

	for (q = places_c; p && q < p; q++)
		line += *q == '\n';
	snprintf(spec, sizeof(spec), "places.c:%d", line);
	return spec;
}

/* The lowest address of the line spec names, in module 0. */
static uint64_t lowest(const struct causal_lines *t, const char *spec)
{
	uint64_t low = UINT64_MAX;
	size_t i;
	unsigned line = (unsigned)atoi(strchr(spec, ':') + 1);

	for (i = 0; i < t->mods[0].nrows; i++) {
		const struct causal_row *r = &t->mods[0].rows[i];

		if (r->line == line && causal_path_matches("places.c", t->files.strs[r->file]) &&
		    r->addr < low)
			low = r->addr;
	}
	return low;
}

/* The function names of point k's places, joined. */
static const char *functions_of(const struct causal_lines *t, size_t k)
{
	static char buf[256];
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; k < t->npoints && i < t->points[k].n && used < sizeof(buf); i++) {
		uint32_t f = t->bps[t->points[k].first + i].function;

		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", i ? " " : "",
					 f == UINT32_MAX ? "?" : t->files.strs[f]);
	}
	return buf;
}

static void test_places(void)
{
	struct causal_lines t;
	char err[2048] = "", spec[64];

	tap_ok(build(&t, "places", NULL, err, sizeof(err)) == 0, "places: reads (%s)", err);
	snprintf(spec, sizeof(spec), "%s", spec_of("HOISTED"));
	tap_ok(causal_lines_add_progress(&t, spec, err, sizeof(err)) == 0 && t.npoints == 1 &&
		       t.points[0].n == 1 && t.bps[0].addr != lowest(&t, spec) && !t.points[0].again,
	       "a line whose lowest address is hoisted out of its loop: one place, elsewhere (%s)",
	       err);
	tap_ok(t.points[0].nnear > 0 &&
		       strstr(t.locs.strs[t.points[0].near[0]], spec_of("spin(100, 1.0);\n\t\tif")),
	       "its nearest line with code is the one above");
	snprintf(spec, sizeof(spec), "%s", spec_of("HELPER"));
	tap_ok(causal_lines_add_progress(&t, spec, err, sizeof(err)) == 0 && t.npoints == 2 &&
		       t.points[1].n == 2 && !strcmp(functions_of(&t, 1), "helper helper"),
	       "a line of a function inlined twice: a place in each copy (%s)", functions_of(&t, 1));
	snprintf(spec, sizeof(spec), "%s", spec_of("HEADER"));
	tap_ok(causal_lines_add_progress(&t, spec, err, sizeof(err)) == 0 && t.npoints == 3 &&
		       t.points[2].n == 1 && t.bps[t.points[2].first].addr != lowest(&t, spec),
	       "a loop's header: one place, in the loop rather than its set-up (%s)", err);
	snprintf(spec, sizeof(spec), "%s", spec_of("AGAIN"));
	tap_ok(causal_lines_add_progress(&t, spec, err, sizeof(err)) < 0 && t.npoints == 3 &&
		       t.nbps == 4 && strstr(err, "start at 2 places") &&
		       strstr(err, "at 4 at most (the debug registers); the --progress lines before "
				   "it leave 0;"),
	       "a fifth address over all the lines is refused: '%s'", err);
	causal_lines_free(&t);

	tap_ok(build(&t, "places", NULL, err, sizeof(err)) == 0 &&
		       causal_lines_add_progress(&t, spec_of("AGAIN"), err, sizeof(err)) == 0 &&
		       t.points[0].n == 2 && t.points[0].again,
	       "a line the goto enters midway: two places, and a visit of the first may pass the second");
	tap_ok(causal_lines_add_progress(&t, spec_of("MANY"), err, sizeof(err)) < 0 &&
		       strstr(err, "start at 5 places") && strstr(err, "in many()") &&
		       strstr(err, "COZ_PROGRESS"),
	       "a line inlined five times: refused, with what to do instead: '%s'", err);
	causal_lines_free(&t);

	/* clang writes no .debug_aranges: units are found by their ranges. */
	tap_ok(build(&t, "places-clang", NULL, err, sizeof(err)) == 0 &&
		       causal_lines_add_progress(&t, spec_of("HELPER"), err, sizeof(err)) == 0 &&
		       t.points[0].n == 2 && !strcmp(functions_of(&t, 0), "helper helper"),
	       "clang: a place in each inlined copy too (%s)", functions_of(&t, 0));
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
	    write_file("places.c", places_c) || compile("cc", "app5", "-gdwarf-5", "main.c") ||
	    compile("cc", "app4", "-gdwarf-4", "main.c") || compile("cc", "app0", "", "main.c") ||
	    compile("cc", "places", "-g", "places.c") ||
	    compile("clang", "places-clang", "-g", "places.c")) {
		tap_ok(0, "cannot compile the test programs in %s", dir);
		return tap_done();
	}
	test_binary("app5", "DWARF 5");
	test_binary("app4", "DWARF 4");
	test_places();
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
