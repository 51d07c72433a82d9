/*
 * test_merge.c - merging across threads and processes, the metrics, the
 * renderers, and symbolization of this very program (/proc/self/exe) with
 * a leaf frame, a return address and an inlined function.
 */
#include "tap.h"
#include "core/escape.h"
#include "profile/reader.h"
#include "report/render.h"
#include "report/report.h"
#include "report/symbolize.h"

#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__GNUC__) && !defined(__clang__)
#define NOIPA __attribute__((noipa))
#else
#define NOIPA __attribute__((noinline))
#endif

static const char header[] =
	"WITCH-PROFILE 1\n"
	"tool dead\n"
	"source timer\n"
	"rate_hz 200\n"
	"period 0\n"
	"registers 4\n"
	"pid %d\n"
	"start_ns 1\n"
	"end_ns 2\n"
	"status complete\n"
	"arg 0 ./app\n"
	"module 0 - 0 %s\n"
	"stat samples 100\n"
	"stat traps 40\n";

/* Join header and body, count the lines, add the end line, parse. */
static struct wp_profile *profile(int pid, const char *module,
				  const char *body)
{
	static char text[8192];
	char esc[4096], err[512];
	struct wp_profile *p = NULL;
	size_t n, lines = 0;
	char *c;

	core_escape(esc, sizeof(esc), module);
	n = (size_t)snprintf(text, sizeof(text), header, pid, esc);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", body);
	for (c = text; *c; c++)
		lines += *c == '\n';
	snprintf(text + n, sizeof(text) - n, "end %zu\n", lines);
	if (wp_parse("test.witch", text, strlen(text), &p, err, sizeof(err)))
		tap_diag("parse: %s", err);
	return p;
}

static int merge(struct wr_report *r, struct wp_profile *p)
{
	char err[512];
	int ret = p ? wr_merge(r, p, err, sizeof(err)) : -1;

	if (p && ret)
		tap_diag("merge: %s", err);
	wp_free(p);
	return ret;
}

/* Two threads of one process, then another process, same contexts. */
static void test_merge(void)
{
	static const char threads[] =
		"thread 10 3 1\n"
		"n 0 -1 -1 0 0\n"
		"n 1 0 0 1000 0\n"
		"n 2 1 0 1010 5\n"
		"p 2 2 30.000 1.000 4\n"
		"thread 11 4 2\n"
		"n 0 -1 -1 0 0\n"
		"n 1 0 0 1000 0\n"
		"n 2 1 0 2000 0\n"
		"n 3 1 0 1010 7\n"
		"p 3 3 12.500 0.500 2\n"
		"p 3 2 0.000 9.000 3\n";
	static const char process[] =
		"thread 20 3 1\n"
		"n 0 -1 -1 0 0\n"
		"n 1 0 0 1000 0\n"
		"n 2 1 0 1010 1\n"
		"p 2 2 2.500 0.000 1\n";
	struct wr_report *r = wr_report_new();
	const struct wr_pair *top;
	char *text = NULL, *json = NULL;
	size_t len;
	FILE *f;

	tap_ok(r && !merge(r, profile(10, "/nonexistent/app", threads)) &&
	       !wr_report_finish(r), "two threads merge");
	tap_ok(r->npairs == 2 && r->nranked == 2 && r->nwaste == 1,
	       "identical contexts in two threads make one pair (and a "
	       "use-only pair, ranked after those with waste)");
	top = &r->pairs[r->ranked[0]];
	tap_ok(top->waste_milli == 42500 && top->use_milli == 1500 &&
	       top->count == 6, "its waste, use and traps are the sums "
	       "(30.000 + 12.500 = 42.500)");
	tap_ok(r->ctxs[top->watch].samples == 12, "context samples are summed");
	tap_ok(r->waste_milli == 42500 && r->use_milli == 10500,
	       "totals include the use-only pair");

	tap_ok(!merge(r, profile(20, "/nonexistent/app", process)) &&
	       !wr_report_finish(r), "a second process merges");
	top = &r->pairs[r->ranked[0]];
	tap_ok(r->nprocs == 2 && r->nthreads == 3 && r->npairs == 2 &&
	       top->waste_milli == 45000, "across processes too (45.000)");
	tap_ok(wr_stat(r, "samples", NULL) == 200 &&
	       wr_stat(r, "traps", NULL) == 80, "stats are summed by name");
	tap_ok(wr_redundancy(r->waste_milli, r->use_milli) > 0.8108 &&
	       wr_redundancy(r->waste_milli, r->use_milli) < 0.8109,
	       "redundancy = 45 / (45 + 10.5)");
	tap_ok(wr_redundancy(0, 0) == 0.0, "redundancy of nothing is 0");

	{
		static const char other[] =
			"thread 30 2 1\n"
			"n 0 -1 -1 0 0\n"
			"n 1 0 0 1000 0\n"
			"p 1 1 1.000 0.000 1\n";
		struct wp_profile *p = profile(30, "/nonexistent/other", other);
		struct wr_report *r2 = wr_report_new();

		tap_ok(!merge(r2, p) && !wr_report_finish(r2) &&
		       r2->nctxs == 2, "one context");
		wr_report_free(r2);
	}

	f = open_memstream(&text, &len);
	{
		struct wr_symbolizer *s = wr_sym_new(r, NULL);

		tap_ok(s && !wr_render_text(f, r, s, 10), "text renders");
		fclose(f);
		tap_ok(text && strstr(text, "2 processes, 3 threads") &&
		       strstr(text, "#1  100.0% of waste   (waste 45.0, use 1.5, "
			      "7 traps)") &&
		       strstr(text, "app+0x1010 \xe2\x86\x92 app+0x1000") == NULL &&
		       strstr(text, "app+0x1000 \xe2\x86\x92 app+0x1010  KILLED_BY"),
		       "text: header, pair line and root-first chain");
		tap_ok(text && strstr(text, "dead fraction: 81.1% of observed bytes"),
		       "text: dead fraction");
		f = open_memstream(&json, &len);
		tap_ok(!wr_render_json(f, r, s, 10), "json renders");
		fclose(f);
		tap_ok(json && strstr(json, "\"pairs\":[{\"waste_bytes\":45.000,"
				      "\"use_bytes\":1.500,\"approx_waste_bytes\":0.000,"
				      "\"share\":1.000000,"
				      "\"traps\":7,\"watch\":[{\"function\":null,"
				      "\"linkage_name\":null,\"file\":null,\"line\":null,\"module\":"
				      "\"/nonexistent/app\",\"offset\":\"0x1010\""),
		       "json: pair with frames leaf first");
		tap_ok(json && strstr(json, "\"processes\":[10,20]"),
		       "json: processes");
		wr_sym_free(s);
	}
	if (text)
		tap_diag("%s", strtok(text, "\n"));
	free(text);
	free(json);
	wr_report_free(r);
}

/* Tool rvn: its header, by line and stats (computations 100, 40
 * redundant; loads 50, 10 redundant; stores 20, 0 redundant). */
static struct wp_profile *rvn_profile(int pid, const char *by, const char *body)
{
	static const char head[] =
		"WITCH-PROFILE 1\ntool rvn\nby %s\nsource exhaustive\nrate_hz 0\nperiod 0\n"
		"registers 0\npid %d\nstart_ns 1\nend_ns 2\nstatus complete\n"
		"module 0 - 0 /nonexistent/app\nstat computations 100\n"
		"stat redundant_computations 40\nstat loads 50\nstat redundant_loads 10\n"
		"stat stores 20\nstat redundant_stores 0\nstat dropped 0\n";
	static char text[4096];
	struct wp_profile *p = NULL;
	char err[512];
	size_t lines = 0;
	char *c;

	snprintf(text, sizeof(text), head, by, pid);
	strcat(text, body);
	for (c = text; *c; c++)
		lines += *c == '\n';
	snprintf(text + strlen(text), sizeof(text) - strlen(text), "end %zu\n", lines);
	if (wp_parse("rvn.witch", text, strlen(text), &p, err, sizeof(err)))
		tap_diag("parse: %s", err);
	return p;
}

/* Pairs of tool rvn merge by contexts and kind, rank by their counts. */
static void test_merge_rvn(void)
{
	/* Node 2 at 0x1010, node 3 at 0x1020; the second thread has them
	 * the other way round. */
	static const char threads[] =
		"thread 1 4 2\nn 0 -1 -1 0 0\nn 1 0 0 1000 0\nn 2 1 0 1010 0\nn 3 1 0 1020 0\n"
		"r 2 3 c 10\nr 2 3 l 10\n"
		"thread 2 4 1\nn 0 -1 -1 0 0\nn 1 0 0 1000 0\nn 2 1 0 1020 0\nn 3 1 0 1010 0\n"
		"r 3 2 c 20\n";
	static const char other[] =
		"thread 3 3 1\nn 0 -1 -1 0 0\nn 1 0 0 1000 0\nn 2 1 0 1020 0\nr 2 2 s 10\n";
	struct wr_kind_total t[WR_KINDS + 1];
	struct wr_report *r = wr_report_new();
	const struct wr_pair *pr;
	char err[512];
	struct wp_profile *p;

	tap_ok(r && !merge(r, rvn_profile(1, "symbol", threads)) &&
	       !merge(r, rvn_profile(2, "symbol", other)) && !wr_report_finish(r),
	       "rvn: two processes merge");
	pr = &r->pairs[r->ranked[0]];
	tap_ok(r->npairs == 3 && r->nwaste == 3 && pr->kind == 'c' && pr->count == 30 &&
	       r->redundant == 50, "the same contexts and kind in two threads are one pair "
	       "(10 + 20), another kind another pair");
	tap_ok(wr_share(r, pr) == 0.6 && r->pairs[r->ranked[1]].count == 10 &&
	       r->pairs[r->ranked[1]].kind == 'l' && r->pairs[r->ranked[2]].kind == 's',
	       "ranked by count, ties by contexts then kind; shares of all redundant executions");
	wr_kind_totals(r, t);
	tap_ok(t[0].all == 200 && t[0].redundant == 80 && t[1].all == 100 && t[1].redundant == 20 &&
	       t[2].all == 40 && t[2].redundant == 0 && t[3].all == 340 && t[3].redundant == 100 &&
	       !strcmp(t[0].kind, "computation") && !strcmp(t[3].kind, "all"),
	       "totals per kind and for all kinds, summed from the stats");
	p = rvn_profile(3, "value", other);
	tap_ok(p && wr_merge(r, p, err, sizeof(err)) == -1 &&
	       strstr(err, "numbered values by value but") != NULL,
	       "profiles numbered by symbol and by value do not merge");
	wp_free(p);
	wr_report_free(r);
}

static int inlined_asm_line, inline_call_line, leaf_call_line;

static NOIPA uintptr_t probe_leaf(void)
{
	return (uintptr_t)__builtin_return_address(0);
}

static NOIPA uintptr_t probe_caller(void)
{
	uintptr_t ra;

	leaf_call_line = __LINE__ + 1;
	ra = probe_leaf();
	__asm__ volatile("" ::: "memory");	/* no tail call */
	return ra;
}

static inline __attribute__((always_inline)) uintptr_t inlined_here(void)
{
	uintptr_t pc;

	inlined_asm_line = __LINE__ + 1;
	__asm__ volatile("1: lea 1b(%%rip), %0" : "=r"(pc));
	return pc;
}

static NOIPA uintptr_t inline_host(void)
{
	uintptr_t pc;

	inline_call_line = __LINE__ + 1;
	pc = inlined_here();
	__asm__ volatile("" ::: "memory");
	return pc;
}

static int main_program_bias(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	*(uintptr_t *)out = info->dlpi_addr;
	return 1;		/* the first object is the program */
}

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "(null)";
}

static void test_symbolize(void)
{
	char exe[4096], body[1024];
	uintptr_t bias = 0, ra, leaf, pc;
	struct wr_report *r = wr_report_new();
	struct wr_symbolizer *s;
	const struct wr_frame *f;
	ssize_t n;
	long nf;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		tap_ok(1, "symbolize # SKIP no /proc/self/exe");
		wr_report_free(r);
		return;
	}
	exe[n] = '\0';
	dl_iterate_phdr(main_program_bias, &bias);
	ra = probe_caller() - bias;
	leaf = (uintptr_t)probe_leaf - bias;
	pc = inline_host() - bias;
	/* Contexts: root -> caller's return address -> probe_leaf; and pc. */
	snprintf(body, sizeof(body),
		 "thread 1 4 1\n"
		 "n 0 -1 -1 0 0\n"
		 "n 1 0 0 %lx 0\n"
		 "n 2 1 0 %lx 0\n"
		 "n 3 0 0 %lx 0\n"
		 "p 2 3 1.000 0.000 1\n",
		 (unsigned long)ra, (unsigned long)leaf, (unsigned long)pc);
	tap_ok(!merge(r, profile(1, exe, body)) && !wr_report_finish(r),
	       "profile of this test program");
	s = wr_sym_new(r, stderr);
	nf = wr_sym_context(s, r->pairs[0].watch, &f);
	if (nf >= 1 && !f[0].file) {
		tap_ok(1, "symbolize # SKIP built without debug info");
		goto out;
	}
	tap_ok(nf == 2 && f[0].function && !strcmp(f[0].function, "probe_leaf") &&
	       !strcmp(base(f[0].file), "test_merge.c") && f[0].first &&
	       !f[0].inlined && f[0].offset == leaf,
	       "leaf frame: probe_leaf in test_merge.c");
	tap_ok(nf == 2 && f[1].function && !strcmp(f[1].function, "probe_caller") &&
	       f[1].line == leaf_call_line && f[1].offset == ra,
	       "return address: probe_caller at the call's line %d (got %d)",
	       leaf_call_line, nf == 2 ? f[1].line : -1);
	nf = wr_sym_context(s, r->pairs[0].trap, &f);
	tap_ok(nf == 2 && f[0].function && !strcmp(f[0].function, "inlined_here") &&
	       f[0].inlined && f[0].line == inlined_asm_line,
	       "inlined frame: inlined_here at line %d (got %d)",
	       inlined_asm_line, nf >= 1 ? f[0].line : -1);
	tap_ok(nf == 2 && f[1].function && !strcmp(f[1].function, "inline_host") &&
	       !f[1].inlined && !f[1].first && f[1].line == inline_call_line,
	       "its caller: inline_host at the call site, line %d (got %d)",
	       inline_call_line, nf == 2 ? f[1].line : -1);
	nf = wr_sym_context(s, r->pairs[0].trap, &f);
	tap_ok(nf == 2, "cached lookups give the same frames");
out:
	wr_sym_free(s);
	wr_report_free(r);
}

int main(void)
{
	test_merge();
	test_merge_rvn();
	test_symbolize();
	return tap_done();
}
