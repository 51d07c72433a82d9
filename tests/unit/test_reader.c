/*
 * test_reader.c - the profile format's escaping and the strict reader:
 * valid input parses to the right numbers, every kind of damage gives its
 * own error, and arbitrary bytes never crash it.
 */
#include "tap.h"
#include "core/escape.h"
#include "profile/reader.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The example of docs/profile-format.md, completed; 21 lines before end. */
static const char valid_body[] =
	"WITCH-PROFILE 1\n"
	"tool dead\n"
	"source timer\n"
	"rate_hz 200\n"
	"period 0\n"
	"registers 4\n"
	"pid 4242\n"
	"start_ns 1763770000000000000\n"
	"end_ns 1763770001000000000\n"
	"status complete\n"
	"arg 0 ./app\n"
	"arg 1 input%20file.txt\n"
	"module 0 3f2a9c 0 /home/u/app\n"
	"module 1 - 7f0000000000 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"stat samples 812\n"
	"stat watchpoints_armed 640\n"
	"thread 4242 3 1\n"
	"n 0 -1 -1 0 0\n"
	"n 1 0 0 1139 0\n"
	"n 2 1 0 11a0 12\n"
	"p 2 2 35.000 1.500 7\n";

static char valid[sizeof(valid_body) + 16];

static int parse(const char *text, size_t len, struct wp_profile **p,
		 char *err, size_t errlen)
{
	return wp_parse("t.witch", text, len, p, err, errlen);
}

/* Parse text that must fail with a message containing want. */
static void expect_error(const char *text, const char *want, const char *what)
{
	struct wp_profile *p = NULL;
	char err[512];
	int ret = parse(text, strlen(text), &p, err, sizeof(err));

	tap_ok(ret == -1 && !p && strstr(err, want), "%s: error mentions '%s'",
	       what, want);
	if (ret != -1 || !strstr(err, want))
		tap_diag("got: %s", ret ? err : "(success)");
	wp_free(p);
}

/* The valid profile with one line replaced (1-based) by line (none when
 * empty, several when it has newlines), end count kept right. */
static char *with_line(int lineno, const char *line)
{
	static char buf[4096];
	const char *s = valid_body;
	size_t n = 0, lines = 0;
	int i;

	for (i = 1; *s; i++) {
		const char *nl = strchr(s, '\n');
		size_t len = (size_t)(nl - s) + 1;

		if (i == lineno) {
			/* line may be several, split by newlines */
			for (const char *c = line; *c; c++)
				lines += *c == '\n';
			if (*line) {
				n += (size_t)sprintf(buf + n, "%s\n", line);
				lines++;
			}
		} else {
			memcpy(buf + n, s, len);
			n += len;
			lines++;
		}
		s = nl + 1;
	}
	sprintf(buf + n, "end %zu\n", lines);
	return buf;
}

static void test_escape(void)
{
	char src[256], enc[1024], dec[1024];
	int i, ok = 1, clean = 1;
	size_t n;

	/* Every byte value but NUL, in one string. */
	for (i = 1; i < 256; i++)
		src[i - 1] = (char)i;
	src[255] = '\0';
	n = core_escape(enc, sizeof(enc), src);
	tap_ok(n == core_escape_len(src) && n == strlen(enc),
	       "escape of all bytes writes core_escape_len(src) bytes");
	for (i = 0; enc[i]; i++)
		if ((unsigned char)enc[i] <= 0x20 || (unsigned char)enc[i] >= 0x7f)
			clean = 0;
	tap_ok(clean, "escaped text has no space, control or non-ASCII byte");
	strcpy(dec, enc);
	tap_ok(core_unescape(dec) == 0 && !strcmp(dec, src),
	       "unescape(escape(all bytes)) round-trips");

	n = core_escape(enc, sizeof(enc), "");
	tap_ok(n == 1 && !strcmp(enc, "%"), "empty string is written as %%");
	tap_ok(core_escape(enc, sizeof(enc), NULL) == 1 && !strcmp(enc, "%"),
	       "NULL is written as the empty string");
	strcpy(dec, "%");
	tap_ok(core_unescape(dec) == 0 && dec[0] == '\0', "%% reads back as empty");

	core_escape(enc, sizeof(enc), "a b%c\n\xff");
	tap_ok(!strcmp(enc, "a%20b%25c%0A%FF"), "escape uses upper-case %%XX");

	/* Small buffers: NUL-terminated, no overflow, no split triplet. */
	for (i = 0; i <= 12; i++) {
		char small[16];

		memset(small, 'Z', sizeof(small));
		n = core_escape(small, (size_t)i, "ab cd%ef");
		if (n >= (size_t)(i ? i : 1) || small[i] != 'Z' ||
		    (i && small[n] != '\0'))
			ok = 0;
		if (i && n && small[n - 1] == '%')
			ok = 0;
		if (i) {
			strcpy(dec, small);
			if (core_unescape(dec) && n)
				ok = 0;
		}
	}
	tap_ok(ok, "escape into small buffers never overflows or splits %%XX");

	{
		const char *bad[] = { "%4", "%G1", "%00", "abc%", "a%%", "%1" };

		ok = 1;
		for (i = 0; i < 6; i++) {
			strcpy(dec, bad[i]);
			if (core_unescape(dec) != -1)
				ok = 0;
		}
		tap_ok(ok, "malformed %%XX escapes are rejected");
	}
	strcpy(dec, "x%2fy%2Fz");
	tap_ok(core_unescape(dec) == 0 && !strcmp(dec, "x/y/z"),
	       "unescape accepts either hex case");
}

static void test_valid(void)
{
	char path[] = "/tmp/witch-test-XXXXXX";
	struct wp_profile *p = NULL;
	char err[512];
	int fd;

	fd = mkstemp(path);
	if (fd < 0 || write(fd, valid, strlen(valid)) != (ssize_t)strlen(valid)) {
		tap_ok(0, "write a temporary profile");
		return;
	}
	close(fd);
	tap_ok(wp_read(path, &p, err, sizeof(err)) == 0 && p, "valid profile "
	       "reads");
	unlink(path);
	if (!p) {
		tap_diag("%s", err);
		return;
	}
	tap_ok(!strcmp(p->tool, "dead") && !strcmp(p->source, "timer") &&
	       p->rate_hz == 200 && p->pid == 4242 && p->registers == 4 &&
	       p->start_ns == 1763770000000000000ULL && !p->incomplete,
	       "header fields");
	tap_ok(p->spread == 1, "no spread line: spread 1");
	tap_ok(p->reach == 0, "no reach line: reach 0 (no limit)");
	tap_ok(p->nargs == 2 && !strcmp(p->args[1], "input file.txt"),
	       "arguments are unescaped");
	tap_ok(p->nmodules == 2 && !strcmp(p->modules[0].build_id, "3f2a9c") &&
	       !p->modules[1].build_id && p->modules[1].bias == 0x7f0000000000ULL,
	       "modules, with '-' as no build-id and hex bias");
	tap_ok(p->nstats == 2 && wp_stat_value(p, "samples") == 812 &&
	       wp_stat_value(p, "nope") == 0, "stats");
	tap_ok(p->nthreads == 1 && p->threads[0].nnodes == 3 &&
	       p->threads[0].npairs == 1, "one thread with 3 nodes and 1 pair");
	tap_ok(p->threads[0].nodes[2].parent == 1 &&
	       p->threads[0].nodes[2].offset == 0x11a0 &&
	       p->threads[0].nodes[2].samples == 12 &&
	       p->threads[0].nodes[0].module == -1, "node fields");
	tap_ok(p->threads[0].pairs[0].waste_milli == 35000 &&
	       p->threads[0].pairs[0].use_milli == 1500 &&
	       p->threads[0].pairs[0].count == 7, "pair metrics in thousandths");
	wp_free(p);
}

/* A launcher's ranks: host, rank and world size, each optional (a
 * profile from before them has none). */
static void test_job_lines(void)
{
	struct wp_profile *p = NULL;
	char err[512];
	const char *t;

	tap_ok(parse(valid, strlen(valid), &p, err, sizeof(err)) == 0 && p && !p->host &&
	       p->rank == -1 && p->world_size == 0, "no host, rank or world_size lines: none");
	wp_free(p);
	p = NULL;
	t = with_line(7, "pid 4242\nhost node%207\nrank 3\nworld_size 4");
	tap_ok(parse(t, strlen(t), &p, err, sizeof(err)) == 0 && p && !strcmp(p->host, "node 7") &&
	       p->rank == 3 && p->world_size == 4, "host (unescaped), rank and world size");
	wp_free(p);
	p = NULL;
	t = with_line(7, "pid 4242\nrank 0");
	tap_ok(parse(t, strlen(t), &p, err, sizeof(err)) == 0 && p && !p->host && p->rank == 0 &&
	       p->world_size == 0, "a rank whose world size the launcher did not give");
	wp_free(p);
	expect_error(with_line(7, "pid 4242\nworld_size 4"), "world_size line but no rank",
		     "a world size without a rank");
	expect_error(with_line(7, "pid 4242\nrank 4\nworld_size 4"), "says rank 4 of a world of 4",
		     "a rank not below the world size");
	expect_error(with_line(7, "pid 4242\nrank 0\nworld_size 0"), ":9: world_size 0",
		     "a world of no rank");
	expect_error(with_line(7, "pid 4242\nrank -1"), ":8: bad rank", "a negative rank");
	expect_error(with_line(7, "pid 4242\nhost a\nhost b"), ":9: second host line",
		     "two host lines");
	expect_error(with_line(7, "pid 4242\nhost a%2"), "malformed", "a badly escaped host");
}

/* The runtime numbers modules by first use but lists them by address. */
static void test_module_order(void)
{
	static const char in_order[] =
		"module 0 3f2a9c 0 /home/u/app\n"
		"module 1 - 7f0000000000 /usr/lib/x86_64-linux-gnu/libc.so.6\n";
	static const char swapped[] =
		"module 1 - 7f0000000000 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
		"module 0 3f2a9c 0 /home/u/app\n";
	struct wp_profile *p = NULL;
	char buf[4096], err[512];

	snprintf(buf, sizeof(buf), "%s", valid);
	memcpy(strstr(buf, in_order), swapped, strlen(swapped));
	tap_ok(parse(buf, strlen(buf), &p, err, sizeof(err)) == 0 && p &&
	       p->threads[0].nodes[1].module == 1 &&
	       !strcmp(p->modules[1].path, "/home/u/app"),
	       "module ids out of order: nodes get the index of their module");
	wp_free(p);
}

static void test_truncated(void)
{
	size_t len = strlen(valid), cut;
	int all_fail = 1, all_say = 1;

	for (cut = 1; cut < len; cut++) {
		struct wp_profile *p = NULL;
		char err[512];

		if (parse(valid, cut, &p, err, sizeof(err)) != -1 || p)
			all_fail = 0;
		else if (!strstr(err, "is truncated (no end line)"))
			all_say = 0, tap_diag("cut at %zu: %s", cut, err);
		wp_free(p);
	}
	tap_ok(all_fail, "every proper prefix of a profile is refused");
	tap_ok(all_say, "... and called truncated");
	expect_error("", "is empty", "empty file");
}

static void test_corrupt(void)
{
	char buf[4096];

	expect_error(with_line(5, "spread 0"), ":5: spread 0", "spread 0");
	expect_error(with_line(5, "spread x"), ":5:", "spread not a number");
	expect_error(with_line(5, "spread 65"), ":5: spread 65", "spread above 64");
	expect_error(with_line(5, "spread 18446744073709551615"), ":5: spread", "spread 2^64-1");
	expect_error(with_line(3, "source pmu\nspread 8"), "says spread 8 with source pmu",
		     "spread with the PMU source");
	expect_error(with_line(5, "reach x"), ":5:", "reach not a number");
	expect_error(with_line(5, "reach 4097"), ":5: reach 4097", "reach above 4096");
	expect_error(with_line(5, "reach 18446744073709551615"), ":5: reach", "reach 2^64-1");
	expect_error(with_line(3, "source pmu\nreach 8"), "says reach 8 with source pmu",
		     "reach with the PMU source");
	expect_error(with_line(1, "WITCH-PROFILE 2"),
		     "is a version 2 witch profile but this witch reads version 1",
		     "newer version");
	expect_error("\x7f" "ELF\2\1\1\0\0\0\n", "is not a witch profile",
		     "an ELF file");
	expect_error(with_line(20, "n 2 5 0 11a0 12"), ":20: node 2 has parent '5'",
		     "parent not earlier");
	expect_error(with_line(18, "n 0 3 -1 0 0"), "node 0 has parent",
		     "root with a parent");
	expect_error(with_line(19, "n 1 -1 0 1139 0"), "node 1 has parent '-1'",
		     "second root");
	expect_error(with_line(21, "p 2 3 35.000 1.500 7"),
		     "pair refers to node 3 but thread 4242 has nodes 0 to 2",
		     "pair node out of range");
	expect_error(with_line(19, "n 1 0 2 1139 0"), "refers to module '2', "
		     "which no module line before it defines",
		     "module id out of range");
	expect_error(with_line(14, "module 0 - 0 /lib/libc.so.6"),
		     ":14: second module line with id 0", "duplicate module id");
	expect_error(with_line(14, "module 99 - 0 /lib/libc.so.6"),
		     "module id 99 is out of range (the profile has 2 module "
		     "lines, so ids run from 0 to 1)", "huge module id");
	/* Module 0's line moved after the thread that refers to it. */
	snprintf(buf, sizeof(buf), "%s", with_line(13, "stat moved 1"));
	snprintf(strstr(buf, "end "), 64, "module 0 3f2a9c 0 /a\nend 22\n");
	expect_error(buf, ":19: node 1 refers to module '0', which no module "
		     "line before it defines", "node before its module");
	expect_error(with_line(5, "colour blue"), ":5: unknown keyword 'colour'",
		     "unknown keyword");
	expect_error(with_line(7, "pid 42x"), "bad pid '42x'", "bad number");
	expect_error(with_line(21, "p 2 2 35.5 1.500 7"), "bad waste '35.5'",
		     "metric without three decimals");
	expect_error(with_line(19, "n 1 0 0 11A0 0"), "bad node offset",
		     "upper-case hex");
	expect_error(with_line(17, "thread 4242 3 2"),
		     "declares 3 nodes and 2 pairs but only 4 lines follow",
		     "thread counts beyond the file");
	expect_error(with_line(20, "stat extra 1"),
		     ":17: thread 4242 declares 3 nodes but 2 n lines follow it",
		     "thread section short of nodes");
	expect_error(with_line(17, "thread 4242 2 1"),
		     "thread 4242 has more n lines than the 2 it declares",
		     "thread section with extra nodes");
	expect_error(with_line(3, ""), "has no source line", "missing header");
	expect_error(with_line(4, "tool dead"), "second tool line",
		     "duplicate header");
	expect_error(with_line(16, "stat samples 1"), "two stat lines",
		     "duplicate stat");
	expect_error(with_line(12, "arg 2 x"), "arg line has index 2",
		     "argument out of order");
	expect_error(with_line(11, "arg 0 a\tb"), "raw byte 0x09",
		     "unescaped control byte");
	expect_error(with_line(11, "arg 0 a%2"), "malformed %XX",
		     "bad escape");
	expect_error(with_line(13, "module 0 3F2A 0 /a"), "bad build-id",
		     "upper-case build-id");
	expect_error(with_line(2, "tool  dead"), "empty field", "double space");
	expect_error(with_line(2, "tool dead extra"), "tool line has 3 fields",
		     "extra field");
	expect_error(with_line(19, "q 1 0 0 1139 0"), "unknown keyword",
		     "unknown keyword inside a thread section");

	/* Lines lost in the middle: the end count no longer matches. */
	snprintf(buf, sizeof(buf), "%s", valid);
	memmove(strstr(buf, "stat samples"), strstr(buf, "stat watch"),
		strlen(strstr(buf, "stat watch")) + 1);
	expect_error(buf, "end line counts 21 lines but 20 precede it",
		     "line count mismatch");
	snprintf(buf, sizeof(buf), "%sstat late 1\n", valid);
	expect_error(buf, "is truncated", "a line after the end line");
	snprintf(buf, sizeof(buf), "%s%s", valid, valid);
	expect_error(buf, ":22: end line is followed by more lines",
		     "two profiles concatenated");
	{
		struct wp_profile *p = NULL;
		char err[512];
		char nul[sizeof(valid)];

		memcpy(nul, valid, strlen(valid));
		nul[30] = '\0';
		tap_ok(parse(nul, strlen(valid), &p, err, sizeof(err)) == -1 &&
		       strstr(err, "NUL byte at offset 30"), "a NUL byte");
		wp_free(p);
	}
	expect_error(with_line(17, "thread 4242 99999999999 0"),
		     "but only 4 lines follow", "huge declared node count");
}

/* xorshift64*: the same "random" bytes on every run. */
static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Arbitrary bytes, near-valid lines and mutated profiles: never a crash. */
static void test_fuzz(void)
{
	static const char *const words[] = {
		"n ", "p ", "thread ", "end ", "module ", "arg ", "stat ", "-1 ",
		"0 ", "1 ", "2 ", "3.000 ", "ff ", "\n", "%", "tool dead\n",
		"WITCH-PROFILE 1\n", "99999999999999999999 ", " ",
		"r ", "c ", "l ", "tool rvn\n", "by value\n", "tool loop\n",
		"thresholds 10 0.9 0.8\n", "loop ", "x ", "0.5 ",
	};
	char buf[2048], err[256];
	int i, handled = 0, rounds = 6000;

	for (i = 0; i < rounds; i++) {
		struct wp_profile *p = NULL;
		size_t len = 0, j, n;

		switch (i % 3) {
		case 0:		/* raw bytes, often after a valid magic line */
			if (rnd() & 1)
				len = (size_t)sprintf(buf, "WITCH-PROFILE 1\n");
			n = rnd() % 512;
			for (j = 0; j < n; j++)
				buf[len++] = (char)rnd();
			break;
		case 1:		/* the format's own vocabulary, shuffled */
			len = (size_t)sprintf(buf, "WITCH-PROFILE 1\n");
			n = rnd() % 120;
			for (j = 0; j < n; j++) {
				const char *w = words[rnd() % (sizeof(words) /
							       sizeof(words[0]))];

				if (len + strlen(w) >= sizeof(buf))
					break;
				memcpy(buf + len, w, strlen(w));
				len += strlen(w);
			}
			break;
		default:	/* a valid profile with a few bytes changed */
			len = strlen(valid);
			memcpy(buf, valid, len);
			n = 1 + rnd() % 4;
			for (j = 0; j < n; j++) {
				static const char near[] = "0123456789 -\n.%abf";
				char c = (char)rnd();

				if (rnd() % 4)
					c = near[rnd() % (sizeof(near) - 1)];
				buf[rnd() % len] = c;
			}
			break;
		}
		if (parse(buf, len, &p, err, sizeof(err)))
			handled += !p && err[0] && !strchr(err, '\n');
		else
			handled += p && p->tool && p->nthreads <= len;
		wp_free(p);
	}
	tap_ok(handled == rounds, "%d fuzzed inputs: no crash, each an error "
	       "on one line or a whole profile", rounds);
}

/* witch cpi's two profiles: time on the sampled run's nodes, and the
 * counting run's instructions, edges and call sites. */
static void test_cpi_records(void)
{
	static const char head[] =
		"WITCH-PROFILE 1\n"
		"tool %s\n"
		"source %s\n"
		"rate_hz 250\n"
		"period 0\n"
		"registers 0\n"
		"pid 7\n"
		"start_ns 1\n"
		"end_ns 2\n"
		"status complete\n"
		"module 0 - 0 /bin/app\n";
	char buf[4096], good[2048];	/* buf: good and a line more */
	struct wp_profile *p = NULL;
	char err[512];

	snprintf(buf, sizeof(buf), head, "time", "timer");
	strcat(buf, "thread 7 2 0\nn 0 -1 -1 0 0\nn 1 0 0 1139 3 12000000\nend 14\n");
	tap_ok(parse(buf, strlen(buf), &p, err, sizeof(err)) == 0 && p &&
	       p->threads[0].nodes[1].samples == 3 && p->threads[0].nodes[1].ns == 12000000 &&
	       p->threads[0].nodes[0].ns == 0, "tool time: a node's time field");
	wp_free(p);
	p = NULL;
	snprintf(buf, sizeof(buf), head, "dead", "timer");
	strcat(buf, "thread 7 2 0\nn 0 -1 -1 0 0\nn 1 0 0 1139 3 12000000\nend 14\n");
	expect_error(buf, ":14: a node with a time field in a profile of tool dead",
		     "a time field in another tool's profile");

	snprintf(good, sizeof(good), head, "count", "exhaustive");
	strcat(good, "i 0 1139 3 1000\n"
		     "i -1 7fff0000 2 5\n"
		     "e 0 113c 0 1139 j 999\n"
		     "e 0 113c -1 7fff0000 c 0\n"
		     "e 0 1140 0 1145 f 4\n"
		     "c 0 1140 12345\n");
	snprintf(buf, sizeof(buf), "%send 17\n", good);
	tap_ok(parse(buf, strlen(buf), &p, err, sizeof(err)) == 0 && p &&
	       p->ninsns == 2 && p->insns[0].module == 0 && p->insns[0].offset == 0x1139 &&
	       p->insns[0].len == 3 && p->insns[0].count == 1000 && p->insns[1].module == -1 &&
	       p->nedges == 3 && p->edges[0].kind == 'j' && p->edges[0].dst == 0x1139 &&
	       p->edges[0].count == 999 && p->edges[1].dst_module == -1 &&
	       p->edges[1].count == 0 && p->ncalls == 1 && p->calls[0].below == 12345,
	       "tool count: instructions, edges (a known one never taken too) and a call site");
	if (!p)
		tap_diag("%s", err);
	wp_free(p);
	snprintf(buf, sizeof(buf), "%si 0 1 16 1\nend 18\n", good);
	expect_error(buf, ":18: instruction length 16", "an instruction of 16 bytes");
	snprintf(buf, sizeof(buf), "%se 0 1 0 2 x 1\nend 18\n", good);
	expect_error(buf, ":18: bad edge kind 'x'", "an unknown edge kind");
	snprintf(buf, sizeof(buf), "%sc 3 1 1\nend 18\n", good);
	expect_error(buf, ":18: refers to module '3'", "a call site in an undefined module");
	snprintf(buf, sizeof(buf), head, "load", "timer");
	strcat(buf, "i 0 1139 3 1000\nend 12\n");
	expect_error(buf, "has instruction, edge or call lines but tool load",
		     "count lines in another tool's profile");
}

/* An rvn profile up to its pairs: "by" right after "tool" (line 3), its
 * stats, and a thread of three nodes (lines 21 to 23). */
static const char rvn_head[] =
	"WITCH-PROFILE 1\n"
	"tool %s\n"
	"%s"
	"source exhaustive\n"
	"rate_hz 0\n"
	"period 0\n"
	"registers 0\n"
	"pid 7\n"
	"start_ns 1\n"
	"end_ns 2\n"
	"status complete\n"
	"module 0 - 0 /bin/app\n"
	"stat computations 100\n"
	"stat redundant_computations 40\n"
	"stat loads 50\n"
	"stat redundant_loads %s\n"
	"stat stores 10\n"
	"stat redundant_stores 0\n"
	"stat dropped 2\n"
	"thread 7 3 2\n"
	"n 0 -1 -1 0 0\n"
	"n 1 0 0 1139 0\n"
	"n 2 0 0 11a0 0\n";

/* rvn_head for tool, by line (with its newline, or ""), redundant loads,
 * then the pair lines and the end line. */
static const char *rvn_profile(const char *tool, const char *by, const char *redundant_loads,
			       const char *pairs)
{
	static char buf[4096];
	size_t lines = 0;
	char *c;

	snprintf(buf, sizeof(buf), rvn_head, tool, by, redundant_loads);
	strcat(buf, pairs);
	for (c = buf; *c; c++)
		lines += *c == '\n';
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "end %zu\n", lines);
	return buf;
}

/* Tool rvn: its by line and r lines, and nobody else's. */
static void test_rvn_records(void)
{
	static const char pairs[] = "r 1 2 c 40\nr 2 2 l 3\n";
	struct wp_profile *p = NULL;
	const char *text = rvn_profile("rvn", "by value\n", "3", pairs);
	char err[512];

	tap_ok(parse(text, strlen(text), &p, err, sizeof(err)) == 0 && p &&
	       !strcmp(p->by, "value") && p->threads[0].npairs == 2 &&
	       p->threads[0].pairs[0].watch == 1 && p->threads[0].pairs[0].trap == 2 &&
	       p->threads[0].pairs[0].kind == 'c' && p->threads[0].pairs[0].count == 40 &&
	       p->threads[0].pairs[1].kind == 'l' && p->threads[0].pairs[1].waste_milli == 0,
	       "tool rvn: by, and r lines as pairs with their kind and count");
	if (!p)
		tap_diag("%s", err);
	wp_free(p);
	p = NULL;
	tap_ok(parse(valid, strlen(valid), &p, err, sizeof(err)) == 0 && p && !p->by &&
	       p->threads[0].pairs[0].kind == 0, "other tools: no by, pairs of no kind");
	wp_free(p);

	expect_error(rvn_profile("rvn", "by symbol\n", "3", "r 1 2 c 40\nr 2 2 x 3\n"),
		     ":25: bad kind 'x' (expected c, l or s", "an r line's kind");
	expect_error(rvn_profile("rvn", "by symbol\n", "3", "r 1 2 c 40\nr 2 2 l 0\n"),
		     ":25: redundant count 0", "an r line's count 0");
	expect_error(rvn_profile("rvn", "by symbol\n", "3", "r 1 3 c 40\nr 2 2 l 3\n"),
		     ":24: pair refers to node 3", "an r line's node out of range");
	expect_error(rvn_profile("rvn", "by symbol\n", "3", "r 1 2 c 40\nr 2 2 l 3\nr 1 1 s 1\n"),
		     ":26: thread 7 has more r lines than the 2 pairs it declares",
		     "more r lines than the thread declares");
	expect_error(rvn_profile("rvn", "by symbol\n", "3", "r 1 2 c 40\np 2 2 1.000 0.000 1\n"),
		     ":25: a p line in a profile of tool rvn", "a p line in an rvn profile");
	expect_error(rvn_profile("deadspy", "", "3", "p 1 2 1.000 0.000 1\nr 2 2 l 3\n"),
		     ":24: an r line in a profile of tool deadspy", "an r line in a deadspy profile");
	expect_error(rvn_profile("rvn", "", "3", pairs), "has no by line", "rvn without by");
	expect_error(rvn_profile("deadspy", "by symbol\n", "3", "p 1 2 1.000 0.000 1\np 2 2 1.000 0.000 1\n"),
		     ":3: a by line in a profile of tool deadspy", "by in a deadspy profile");
	expect_error(rvn_profile("rvn", "by symbol\nby value\n", "3", pairs), ":4: second by line",
		     "two by lines");
	expect_error(rvn_profile("rvn", "by name\n", "3", pairs), ":3: unknown by 'name'",
		     "by neither symbol nor value");
	expect_error(rvn_profile("rvn", "by value\n", "51", pairs),
		     "counts 51 redundant_loads among 50 loads", "more redundant loads than loads");
	text = rvn_profile("rvn", "by value\n", "3", pairs);
	{
		char buf[4096];

		snprintf(buf, sizeof(buf), "%s", text);
		memcpy(strstr(buf, "stat stores 10"), "stat storez 10", 14);
		expect_error(buf, "has no stat stores", "an rvn profile without its stores");
	}
}

/* A loop profile: tool (line 2), thresholds line (3, with its newline, or
 * ""), loop lines (from line 13), its stats, and a thread of five nodes
 * (the headers 1180 and 11a0, a load at 11b4) declaring `records`
 * records, then lines and the end line. */
static const char loop_head[] =
	"WITCH-PROFILE 1\n"
	"tool %s\n"
	"%s"
	"source exhaustive\n"
	"rate_hz 0\n"
	"period 0\n"
	"registers 0\n"
	"pid 7\n"
	"start_ns 1\n"
	"end_ns 2\n"
	"status complete\n"
	"module 0 - 0 /bin/app\n"
	"%s"
	"stat reads 1000\n"
	"stat reads_in_loops 900\n"
	"stat reads_untracked 0\n"
	"stat loops_untracked 0\n"
	"stat loops 2\n"
	"thread 7 5 %d\n"
	"n 0 -1 -1 0 0\n"
	"n 1 0 0 1139 0\n"
	"n 2 1 0 1180 0\n"
	"n 3 1 0 11a0 0\n"
	"n 4 3 0 11b4 0\n";

static const char two_loops[] =
	"loop 5 0 11a0 2 1 14 18 /src/app.c\n"
	"loop 2 0 1180 -1 0 12 20 /src/app.c\n";

static const char *loop_profile(const char *tool, const char *thresholds, const char *loops,
				int records, const char *lines)
{
	static char buf[4096];
	size_t n = 0;
	char *c;

	snprintf(buf, sizeof(buf), loop_head, tool, thresholds, loops, records);
	strcat(buf, lines);
	for (c = buf; *c; c++)
		n += *c == '\n';
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "end %zu\n", n);
	return buf;
}

#define TH "thresholds 10 0.9 0.8\n"
#define L_OK "l 2 2 1 100 100 80 99000 98000\nl 5 3 100 500 0 0 400 0\nx 2 2 4 98000\n"

/* Tool loop: thresholds, loop lines sorted by id with parents as indices,
 * l and x records, and every way they can be wrong. */
static void test_loop_records(void)
{
	struct wp_profile *p = NULL;
	const char *text = loop_profile("loop", TH, two_loops, 3, L_OK);
	const struct wp_thread *t;
	char err[512];
	int ok;

	ok = parse(text, strlen(text), &p, err, sizeof(err)) == 0 && p;
	t = ok ? &p->threads[0] : NULL;
	tap_ok(ok && p->has_thresholds && p->thresholds.a == 10 &&
	       p->thresholds.r == 900000000u && p->thresholds.ri == 800000000u && p->nloops == 2 &&
	       p->loops[0].id == 2 && p->loops[0].parent == -1 && p->loops[0].header == 0x1180 &&
	       p->loops[1].id == 5 && p->loops[1].parent == 0 && p->loops[1].depth == 1 &&
	       p->loops[1].first_line == 14 && p->loops[1].last_line == 18 &&
	       !strcmp(p->loops[1].file, "/src/app.c") && t->npairs == 0 && t->nloop_recs == 2 &&
	       t->nloop_reads == 1, "tool loop: thresholds, loops sorted by id, parents as indices");
	tap_ok(ok && t->loop_recs[0].loop == 0 && t->loop_recs[0].node == 2 &&
	       t->loop_recs[0].invocations == 1 && t->loop_recs[0].iterations == 100 &&
	       t->loop_recs[0].data_iterations == 100 && t->loop_recs[0].redundant_iterations == 80 &&
	       t->loop_recs[0].reads == 99000 && t->loop_recs[0].redundant_reads == 98000 &&
	       t->loop_recs[1].loop == 1 && t->loop_reads[0].loop == 0 &&
	       t->loop_reads[0].node == 2 && t->loop_reads[0].load == 4 &&
	       t->loop_reads[0].redundant_reads == 98000, "l and x records with their loops as indices");
	if (!ok)
		tap_diag("%s", err);
	wp_free(p);
	p = NULL;
	text = loop_profile("loop", "thresholds 1 1 0.123456789\n", "loop 0 0 1180 -1 0 0 0 -\n", 0, "");
	ok = parse(text, strlen(text), &p, err, sizeof(err)) == 0 && p;
	tap_ok(ok && p->thresholds.a == 1 && p->thresholds.r == 1000000000u &&
	       p->thresholds.ri == 123456789u && !p->loops[0].file && p->loops[0].first_line == 0,
	       "thresholds 1 and nine decimals; a loop of unknown lines and file");
	if (!ok)
		tap_diag("%s", err);
	wp_free(p);

	expect_error(loop_profile("loop", "thresholds 10 1.5 0.8\n", two_loops, 3, L_OK),
		     ":3: bad threshold R '1.5'", "R above 1");
	expect_error(loop_profile("loop", "thresholds 10 0.9 0\n", two_loops, 3, L_OK),
		     ":3: bad threshold RI '0'", "RI 0");
	expect_error(loop_profile("loop", "thresholds 10 0.9 80%\n", two_loops, 3, L_OK),
		     ":3: bad threshold RI '80%'", "RI as a percentage");
	expect_error(loop_profile("loop", "thresholds 0 0.9 0.8\n", two_loops, 3, L_OK),
		     ":3: threshold A 0", "A 0");
	expect_error(loop_profile("loop", "", two_loops, 3, L_OK), "has no thresholds line",
		     "tool loop without thresholds");
	expect_error(loop_profile("deadspy", TH, "", 0, ""),
		     ":3: a thresholds line in a profile of tool deadspy", "thresholds in another tool");
	expect_error(loop_profile("deadspy", "", two_loops, 0, ""),
		     ":12: a loop, l or x line in a profile of tool deadspy", "loop lines in another tool");
	expect_error(loop_profile("loop", TH, two_loops, 3, "l 2 2 1 100 100 80 99000 98000\nl 5 3 100 500 0 0 400\nx 2 2 4 98000\n"),
		     ":27: l line has 8 fields where 9 were expected", "an l line without a field");
	expect_error(loop_profile("loop", TH, two_loops, 3, "l 2 2 1 100 100 80 99000 98000\nl 5 3 100 500 0 0 400 0\nx 2 2 4 98000 1\n"),
		     ":28: x line has 6 fields where 5 were expected", "an x line with a field too many");
	expect_error(loop_profile("loop", TH, "loop 5 0 11a0 2 1 14 18\nloop 2 0 1180 -1 0 12 20 /src/app.c\n", 3, L_OK),
		     ":13: loop line has 8 fields where 9 were expected", "a loop line without its file");
	expect_error(loop_profile("loop", TH, two_loops, 3, "l 2 2 1 100 100 80 99000 98000\nl 9 3 100 500 0 0 400 0\nx 2 2 4 98000\n"),
		     ":27: unknown loop 9", "an l line of an unknown loop");
	expect_error(loop_profile("loop", TH, two_loops, 3, "l 2 2 1 100 100 80 99000 98000\nl 5 3 100 500 0 0 400 0\nx 3 2 4 98000\n"),
		     ":28: unknown loop 3", "an x line of an unknown loop");
	expect_error(loop_profile("loop", TH, two_loops, 3, "l 2 2 1 100 100 80 99000 98000\nl 5 2 100 500 0 0 400 0\nx 2 2 4 98000\n"),
		     ":27: loop node 2 is not at loop 5's header", "an l line whose node is another loop's header");
	expect_error(loop_profile("loop", TH, two_loops, 3, "l 2 2 1 100 100 80 99000 98000\nl 5 3 100 500 0 0 400 0\nx 2 2 0 98000\n"),
		     ":28: load node 0 is the root", "an x line whose load is the root");
	expect_error(loop_profile("loop", TH, two_loops, 3, "l 2 2 1 100 101 80 99000 98000\nl 5 3 100 500 0 0 400 0\nx 2 2 4 98000\n"),
		     ":26: 101 data-intensive iterations among 100 iterations", "more data-intensive iterations than iterations");
	expect_error(loop_profile("loop", TH, two_loops, 3, "l 2 2 1 100 100 101 99000 98000\nl 5 3 100 500 0 0 400 0\nx 2 2 4 98000\n"),
		     ":26: 101 redundant iterations among 100 data-intensive ones", "more redundant iterations than data-intensive ones");
	expect_error(loop_profile("loop", TH, two_loops, 3, "l 2 2 1 100 100 80 99000 99001\nl 5 3 100 500 0 0 400 0\nx 2 2 4 98000\n"),
		     ":26: 99001 redundant reads among 99000 reads", "more redundant reads than reads");
	expect_error(loop_profile("loop", TH, two_loops, 3, "l 2 2 1 100 100 80 99000 98000\nx 2 2 4 98000\nthread 8 1 0\nn 0 -1 -1 0 0\n"),
		     ":20: thread 7 declares 3 records but 2 l or x lines follow it", "fewer records than declared");
	expect_error(loop_profile("loop", TH, two_loops, 2, L_OK),
		     ":28: thread 7 has more x lines than the 2 records it declares", "more records than declared");
	expect_error(loop_profile("loop", TH, "loop 2 0 11a0 -1 0 14 18 /a.c\nloop 2 0 1180 -1 0 12 20 /a.c\n", 0, ""),
		     ":14: second loop line with id 2 (the first is line 13)", "two loops with one id");
	expect_error(loop_profile("loop", TH, "loop 5 0 11a0 7 1 14 18 /a.c\n", 0, ""),
		     ":13: loop 5 is nested in loop 7, which has no loop line", "a parent without its loop line");
	expect_error(loop_profile("loop", TH, "loop 5 0 11a0 2 2 14 18 /a.c\nloop 2 0 1180 -1 0 12 20 /a.c\n", 0, ""),
		     ":13: loop 5 (depth 2) is nested in loop 2 (depth 0): a nested loop is one level deeper", "a nested loop's depth");
	expect_error(loop_profile("loop", TH, "loop 2 0 1180 -1 0 22 20 /a.c\n", 0, ""),
		     ":13: loop 2's first line 22 is after its last line 20", "lines backwards");
	expect_error(loop_profile("loop", TH, two_loops, 4, L_OK "p 2 2 1.000 0.000 1\n"),
		     ":29: a p line in a profile of tool loop", "a p line in a loop profile");
	text = loop_profile("loop", TH, two_loops, 3, L_OK);
	{
		char buf[4096], *at;

		snprintf(buf, sizeof(buf), "%s", text);
		memcpy(strstr(buf, "stat reads_untracked"), "stat reads_untrackex", 20);
		expect_error(buf, "has no stat reads_untracked", "a loop profile without a stat");
		snprintf(buf, sizeof(buf), "%s", text);
		at = strstr(buf, "stat reads_in_loops 900\n");
		memmove(at + 1, at, strlen(at) + 1);
		memcpy(at, "stat reads_in_loops 1001", 24);
		expect_error(buf, "counts 1001 reads_in_loops among 1000 reads",
			     "more reads in loops than reads");
	}
}

int main(void)
{
	snprintf(valid, sizeof(valid), "%send 21\n", valid_body);
	test_escape();
	test_valid();
	test_job_lines();
	test_module_order();
	test_truncated();
	test_corrupt();
	test_cpi_records();
	test_rvn_records();
	test_loop_records();
	test_fuzz();
	return tap_done();
}
