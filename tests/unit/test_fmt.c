/*
 * test_fmt.c - the core's formatter, profile lines and file names
 * (src/core/fmt.c, profile.c, outname.c): the bytes every profile is made
 * of, whichever tool writes it (docs/profile-format.md).
 */
#include <string.h>

#include "core/fmt.h"
#include "core/outname.h"
#include "core/profile.h"
#include "tap.h"

/* A sink into one growing string, which fails once `fail_after` bytes
 * have gone (0: never). */
static char sunk[4096];
static size_t nsunk, fail_after, flushes;

static int to_string(void *ctx, const char *p, size_t n)
{
	(void)ctx;
	flushes++;
	if (fail_after && nsunk + n > fail_after)
		return -1;
	memcpy(sunk + nsunk, p, n);
	nsunk += n;
	sunk[nsunk] = 0;
	return 0;
}

static void sink_reset(size_t fail)
{
	nsunk = 0;
	sunk[0] = 0;
	fail_after = fail;
	flushes = 0;
}

static void test_numbers(void)
{
	char buf[128];
	struct core_fmt f;

	core_fmt_init(&f, buf, sizeof(buf), NULL, NULL);
	core_fmt_u64(&f, 0);
	core_fmt_str(&f, " ");
	core_fmt_u64(&f, 18446744073709551615ULL);
	core_fmt_str(&f, " ");
	core_fmt_i64(&f, -1);
	core_fmt_str(&f, " ");
	core_fmt_i64(&f, (int64_t)-9223372036854775807LL - 1);
	core_fmt_str(&f, " ");
	core_fmt_hex(&f, 0x7f3a00001000ULL);
	core_fmt_str(&f, " ");
	core_fmt_hex(&f, 0);
	buf[f.len] = 0;
	tap_ok(!strcmp(buf, "0 18446744073709551615 -1 -9223372036854775808 7f3a00001000 0"),
	       "whole numbers in decimal, addresses in lower-case hex: %s", buf);
}

static void test_milli(void)
{
	char buf[128];
	struct core_fmt f;

	core_fmt_init(&f, buf, sizeof(buf), NULL, NULL);
	core_fmt_milli(&f, core_milli(0));
	core_fmt_str(&f, " ");
	core_fmt_milli(&f, core_milli(1.2346));
	core_fmt_str(&f, " ");
	core_fmt_milli(&f, core_milli(2.0 / 3));
	core_fmt_str(&f, " ");
	core_fmt_milli(&f, core_milli(-3));
	core_fmt_str(&f, " ");
	core_fmt_milli(&f, core_milli(__builtin_nan("")));
	core_fmt_str(&f, " ");
	core_fmt_milli(&f, core_milli(1e300));
	core_fmt_str(&f, " ");
	core_fmt_milli(&f, 42 * 1000ULL);
	buf[f.len] = 0;
	tap_ok(!strcmp(buf, "0.000 1.235 0.667 0.000 0.000 1000000000000000.000 42.000"),
	       "metrics with three decimals, rounded, never negative, NaN as 0, at most 1e15: %s",
	       buf);
}

static void test_cut_and_sink(void)
{
	char small[8];
	struct core_fmt f;

	core_fmt_init(&f, small, sizeof(small), NULL, NULL);
	core_fmt_str(&f, "abcdef");
	core_fmt_u64(&f, 12345);
	core_fmt_str(&f, "xyz");
	tap_ok(f.len == 8 && !memcmp(small, "abcdef12", 8),
	       "without a sink, what does not fit is cut");

	sink_reset(0);
	core_fmt_init(&f, small, sizeof(small), to_string, NULL);
	core_fmt_str(&f, "abcdef");
	core_fmt_u64(&f, 12345);
	core_fmt_str(&f, "xyz");
	tap_ok(core_fmt_flush(&f) == 0 && !strcmp(sunk, "abcdef12345xyz") && flushes == 2,
	       "with a sink, a full buffer goes to it and nothing is cut: %s", sunk);

	sink_reset(10);
	core_fmt_init(&f, small, sizeof(small), to_string, NULL);
	core_fmt_str(&f, "0123456789abcdef");
	tap_ok(core_fmt_flush(&f) == -1 && f.failed && !strcmp(sunk, "01234567"),
	       "once the sink fails, the rest is dropped and flush says so");
}

static void test_escape(void)
{
	char buf[64];
	struct core_fmt f;

	core_fmt_init(&f, buf, sizeof(buf), NULL, NULL);
	core_fmt_esc(&f, "a b%\n\xff~");
	core_fmt_str(&f, " ");
	core_fmt_esc(&f, "");
	core_fmt_str(&f, " ");
	core_fmt_esc(&f, NULL);
	buf[f.len] = 0;
	tap_ok(!strcmp(buf, "a%20b%25%0A%FF~ % %"), "strings %%XX-escaped, empty as %%: %s", buf);
}

static void test_profile_lines(void)
{
	static const char want[] =
		"WITCH-PROFILE 1\n"
		"tool dead\n"
		"pid 42\n"
		"arg 0 /bin/a%20b\n"
		"module 0 - 55d0c0de0000 /usr/bin/app\n"
		"module 1 0badc0de 7f0000000000 %\n"
		"stat samples 7\n"
		"thread 4242 3 2\n"
		"n 0 -1 -1 0 0\n"
		"n 1 0 0 1139 5\n"
		"n 2 1 -1 7fffdeadbeef 0\n"
		"p 1 2 1.500 0.000 3\n"
		"p 2 2 0.000 2.000 1 0.250\n"
		"end 13\n";
	struct core_profile p;
	char small[16];

	sink_reset(0);
	core_fmt_init(&p.out, small, sizeof(small), to_string, NULL);
	p.lines = 0;
	core_profile_kv(&p, "WITCH-PROFILE", "1");
	core_profile_kv(&p, "tool", "dead");
	core_profile_kv_u64(&p, "pid", 42);
	core_profile_arg(&p, 0, "/bin/a b");
	core_profile_module(&p, 0, "", 0x55d0c0de0000ULL, "/usr/bin/app");
	core_profile_module(&p, 1, "0badc0de", 0x7f0000000000ULL, "");
	core_profile_stat(&p, "samples", 7);
	core_profile_thread(&p, 4242, 3, 2);
	core_profile_node(&p, 0, -1, -1, 0, 0);
	core_profile_node(&p, 1, 0, 0, 0x1139, 5);
	core_profile_node(&p, 2, 1, -1, 0x7fffdeadbeefULL, 0);
	core_profile_pair(&p, 1, 2, core_milli(1.5), 0, 3, 0, 0);
	core_profile_pair(&p, 2, 2, 0, 2000, 1, 1, 250);
	tap_ok(core_profile_end(&p) == 0 && !strcmp(sunk, want),
	       "profile lines as docs/profile-format.md spells them, end counting the lines");
	if (strcmp(sunk, want))
		tap_diag("got:\n%s", sunk);
}

/* The files already in the output directory. */
static const char *taken[4];

static int exists(const char *path)
{
	int i;

	for (i = 0; i < 4; i++)
		if (taken[i] && !strcmp(taken[i], path))
			return 1;
	return 0;
}

static void test_names(void)
{
	struct core_outname witch = { "/out", "app", '-', 9, ".witch", NULL };
	struct core_outname causal = { "/out", "causal", '.', 123, "", NULL };
	char name[64], tiny[12];
	unsigned n;

	core_outname_put(&witch, 0, name, sizeof(name));
	tap_ok(!strcmp(name, "/out/app-9.witch"), "first image's profile: %s", name);
	core_outname_put(&causal, 2, name, sizeof(name));
	tap_ok(!strcmp(name, "/out/causal.123.2"), "third image's causal profile: %s", name);
	core_outname_put(&witch, 0, tiny, sizeof(tiny));
	tap_ok(!strcmp(tiny, "/out/app-9."), "a name cut to its buffer: %s", tiny);

	n = core_outname_free(&witch, name, sizeof(name), exists);
	tap_ok(n == 0 && !strcmp(name, "/out/app-9.witch"), "a free first name is taken");
	taken[0] = "/out/app-9.witch";
	taken[1] = "/out/app-9-1.witch";
	n = core_outname_free(&witch, name, sizeof(name), exists);
	tap_ok(n == 2 && !strcmp(name, "/out/app-9-2.witch"),
	       "after an exec, the next free number: %s", name);
}

/* A launcher's ranks: host and rank in the name, found again from it. */
static void test_job_names(void)
{
	struct core_job job = { 3, 64, "node-7.cl/x" }, other = { 3, 64, "7.cl/x" };
	struct core_job none = { -1, 0, "node-7" };
	struct core_outname witch = { "/out", "my-app", '-', 42, ".witch", &job };
	struct core_outname causal = { "/out", "causal", '.', 42, "", &job };
	char name[96];
	uint64_t rank = 0;

	core_outname_put(&witch, 0, name, sizeof(name));
	tap_ok(!strcmp(name, "/out/my-app-hnode-7.cl_x-r3-42.witch"),
	       "a rank's profile: host (a '/' as '_') and rank before the pid: %s", name);
	core_outname_put(&causal, 1, name, sizeof(name));
	tap_ok(!strcmp(name, "/out/causal.hnode-7.cl_x.r3.42.1"), "a rank's causal profile: %s", name);
	witch.job = &none;
	core_outname_put(&witch, 0, name, sizeof(name));
	tap_ok(!strcmp(name, "/out/my-app-42.witch"), "no launcher, no host and rank: %s", name);

	tap_ok(core_outname_rank_tail("my-app-hnode-7-r3-42.witch", '-', ".witch", &rank) == 14 &&
	       rank == 3, "the rank tail is found from the right");
	tap_ok(core_outname_rank_tail("my-app-hnode-r7-r3-42-2.witch", '-', ".witch", &rank) == 15 &&
	       rank == 3, "... after an exec's number, whatever the host holds");
	tap_ok(core_outname_rank_tail("my-app-r3-42-2-1.witch", '-', ".witch", &rank) < 0,
	       "... at most two groups of digits after it");
	tap_ok(core_outname_rank_tail("my-app-42.witch", '-', ".witch", &rank) < 0 &&
	       core_outname_rank_tail("app-r3-42.log", '-', ".witch", &rank) < 0 &&
	       core_outname_rank_tail("app-r3-.witch", '-', ".witch", &rank) < 0,
	       "... and in no name without a rank, another suffix or a pid");
	tap_ok(core_outname_rank_tail("causal.hn.1.r0.42.3", '.', "", &rank) == 11 && rank == 0,
	       "... in causal names too");

	tap_ok(core_outname_of_job("my-app-hnode-7.cl_x-r3-42.witch", '-', ".witch", &job) &&
	       core_outname_of_job("x-hnode-7.cl_x-r3-42-1.witch", '-', ".witch", &job),
	       "a rank's own files are told by name");
	tap_ok(!core_outname_of_job("my-app-hnode-7.cl_x-r4-42.witch", '-', ".witch", &job) &&
	       !core_outname_of_job("my-app-hnode-8.cl_x-r3-42.witch", '-', ".witch", &job) &&
	       !core_outname_of_job("my-app-hnode-7.cl_x-r3-42.witch", '-', ".witch", &other) &&
	       !core_outname_of_job("my-app-42.witch", '-', ".witch", &job) &&
	       !core_outname_of_job("my-app-hnode-7.cl_x-r3-42.witch", '-', ".witch", &none),
	       "... not another rank's, another host's (nor one whose name ends the same), nor unranked ones");
}

int main(void)
{
	test_numbers();
	test_milli();
	test_cut_and_sink();
	test_escape();
	test_profile_lines();
	test_names();
	test_job_names();
	return tap_done();
}
