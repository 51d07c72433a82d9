/*
 * cpi_loops.c - loops with known trip counts, for the exact counts of
 * witch cpi (tests/e2e/60-cpi-counts.t):
 *
 *   nested     an outer loop of 7 iterations around an inner one of 13
 *   calls      a loop of 50 iterations calling leaf() each time
 *   recurse    recursion 10 deep, a loop of 3 iterations in each call
 *   dispatch   one call through a function pointer, 4 times, calling
 *              leaf() and recurse_ptr() by turns; recurse_ptr recurses
 *              6 deep through a pointer of its own: computed calls, which
 *              an interpreter makes
 *   once       a loop that runs one iteration, 20 times
 *   fig6_split, fig6_merged
 *              OptiWISE Figure 6's control flow (in assembly, so that the
 *              compiler cannot change it): back edges from five blocks to
 *              one header, driven by a list of paths; taken as often as
 *              for Table I's three loops, and as for one loop
 *   strings    30 times a rep stosb (of 0, 100, ... 2900 bytes) and a
 *              repe cmpsb of 64 bytes that stops at byte 10 every other
 *              time: each executes 30 times however often it repeats
 *   noreturn_loop
 *              a call that never returns (finish() prints and exits)
 *              whose return site is a block entered before the call
 */
#include <stdio.h>
#include <stdlib.h>

#define NOIPA __attribute__((noipa))

static volatile long sink, three = 3;	/* volatile: no loop unrolled */

NOIPA long nested(long n, long m)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		for (long j = 0; j < m; j++)
			s = s * 3 + (i ^ j);
	return s;
}

NOIPA long leaf(long x)
{
	return x * x + 1;
}

NOIPA long calls(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

NOIPA long recurse(long d)
{
	long s = 0;

	for (long k = 0; k < three; k++)
		s = s * 5 + (k ^ d);
	if (d > 0) {
		long r = recurse(d - 1);

		sink = r;	/* not a tail call: the frames stay */
		s += r;
	}
	return s;
}

static long recurse_ptr(long d);
static long (*volatile self)(long) = recurse_ptr;
static long (*volatile table[2])(long) = { leaf, recurse_ptr };

NOIPA static long recurse_ptr(long d)
{
	long s = d;

	if (d > 0) {
		long r = self(d - 1);

		sink = r;
		s += r;
	}
	return s;
}

NOIPA long dispatch(void)
{
	long s = 0;

	for (long k = 0; k < 4; k++)
		s += table[k & 1](5);
	return s;
}

NOIPA long once(const volatile long *lim)
{
	long s = 0;

	for (long i = 0; i < *lim; i++)
		s += i + 1;
	return s;
}

/*
 * One path per code byte, A the header:
 *   0  A B A          1  A B B2 C A       2  A B B2 C D A
 *   3  A B B2 E A     4  A B B2 E F A     5  A B B2 E F, out
 * Its natural loops: {A,B}, {A,B,B2,C}, {A,B,B2,C,D}, {A,B,B2,E},
 * {A,B,B2,E,F} (OptiWISE's Figure 6, with a block B2 between B and C, E).
 */
#define FIG6(name)							\
	__asm__(".text\n.globl " #name "\n.type " #name ",@function\n"	\
		#name ":\n"						\
		"1:	movzbl (%rdi),%eax\n"	/* A */			\
		"	add $1,%rdi\n"					\
		"	cmp $6,%eax\n"					\
		"	jae 9f\n"					\
		"	test %eax,%eax\n"	/* B */			\
		"	je 1b\n"					\
		"	cmp $3,%eax\n"		/* B2 */		\
		"	jae 3f\n"					\
		"	cmp $1,%eax\n"		/* C */			\
		"	je 1b\n"					\
		"	jmp 1b\n"		/* D */			\
		"3:	cmp $3,%eax\n"		/* E */			\
		"	je 1b\n"					\
		"	cmp $4,%eax\n"		/* F */			\
		"	je 1b\n"					\
		"9:	ret\n"						\
		".size " #name ", .-" #name "\n")

FIG6(fig6_split);
FIG6(fig6_merged);
void fig6_split(const unsigned char *codes);
void fig6_merged(const unsigned char *codes);

NOIPA long strings(long n)
{
	static unsigned char a[4096], b[64];
	long s = 0;

	for (long i = 0; i < n; i++) {
		void *d = a;
		const void *x = a, *y = b;
		long c = i * 100, k = 64;

		b[10] = (unsigned char)(i & 1);
		__asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(0) : "memory");
		__asm__ volatile("repe cmpsb" : "+S"(x), "+D"(y), "+c"(k) : : "memory", "cc");
		s += k;
	}
	return s;
}

/* Entered at 2, which jumps back to the call at 1: were the call's return
 * path an edge, 2 would dominate 1 and head a loop (in assembly, so that
 * the compiler cannot lay it out otherwise). */
__asm__(".text\n.globl noreturn_loop\n.type noreturn_loop,@function\n"
	"noreturn_loop:\n"
	"	sub $8,%rsp\n"		/* the call below sees an aligned stack */
	"	jmp 2f\n"
	"1:	call finish\n"
	"2:	add $1,%rdi\n"
	"	jmp 1b\n"
	".size noreturn_loop, .-noreturn_loop\n");
void noreturn_loop(long s) __attribute__((noreturn));

NOIPA __attribute__((noreturn, used)) void finish(long s)
{
	printf("%ld\n", s);
	exit(0);
}

/* counts[c] codes c, then the code 5 that leaves. */
static unsigned char *paths(unsigned char *p, const int counts[5])
{
	for (int c = 0; c < 5; c++)
		for (int k = 0; k < counts[c]; k++)
			*p++ = (unsigned char)c;
	*p++ = 5;
	return p;
}

int main(void)
{
	/* Table I: {A,B} taken 3x as often as all its supersets, {A,B,B2,E}
	 * 3x as often as {A,B,B2,E,F}, {A,B,B2,C} less than 3x {A,B,B2,C,D}. */
	static const int split[5] = { 400, 20, 10, 40, 10 }, merged[5] = { 10, 20, 0, 0, 0 };
	static unsigned char codes[600];
	static const volatile long one = 1;
	long s = nested(7, 13) + calls(50) + recurse(9) + dispatch() + strings(30);

	for (int k = 0; k < 20; k++)
		s += once(&one);
	paths(codes, split);
	fig6_split(codes);
	paths(codes, merged);
	fig6_merged(codes);
	noreturn_loop(s - 1);
}
