/*
 * Cases whose redundancy under witch spy --tool=rvn is known exactly,
 * each at a line marked `rvn: CASE`:
 *
 *   rvn_cases bytes     one load reads each byte of a buffer once: no
 *                       redundant load (its four bytes share a cell)
 *   rvn_cases rebytes   the same, twice over: the second pass's loads are
 *                       all redundant
 *   rvn_cases half      an 8-byte load, and a 4-byte store to its high
 *                       half before each next one: none redundant
 *   rvn_cases unaligned 8-byte loads 3 bytes into cells of memory the
 *                       program never wrote (read(2) filled it), each
 *                       multiplied: no multiplication redundant
 *   rvn_cases swap      x with y's low byte and y with x's low byte (two
 *                       values), each plus 1: no addition redundant
 *   rvn_cases carry     the same inc twice (the second redundant), and
 *                       setc after each gives the carry from before it
 *                       (1, then 0): the setcs and the leas differ
 *   rvn_cases again     one imul makes c*k on every other call, a new
 *                       product in between: all but the first c*k are
 *                       redundant (it is among the imul's last 4 results)
 *   rvn_cases invariant a loop of one block recomputes x*y N times: all
 *                       but the first redundant (Valgrind would unroll
 *                       the loop and keep one product of each 4)
 *   rvn_cases contexts  one load of a global, from two callers in turn,
 *                       N times each: all but the first redundant (the
 *                       same instruction, whatever its context)
 *   rvn_cases writeback each of N elements loaded and stored back as it
 *                       was: every store redundant, with the load that
 *                       read the number there as its first
 *   rvn_cases commute   x + y, then y + x, of new values N times: every
 *                       second addition redundant (the operands of a
 *                       commutative operator count in either order)
 *
 * N (the second argument, default 1000) is the size or the repetitions.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOIPA __attribute__((noipa))

NOIPA static unsigned sum_bytes(const unsigned char *p, long n)
{
	unsigned s = 0;

	for (long i = 0; i < n; i++) {
		s += p[i]; /* rvn: bytes */
		__asm__ volatile("" : "+r"(s));
	}
	return s;
}

static uint64_t word[1];

NOIPA static uint64_t load_word(void)
{
	return *(volatile uint64_t *)word; /* rvn: half */
}

NOIPA static void store_high(uint32_t v)
{
	((volatile uint32_t *)word)[1] = v;
}

NOIPA static uint64_t load8(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

NOIPA static uint64_t scramble(uint64_t v)
{
	return v * 0x9E3779B97F4A7C15ULL; /* rvn: unaligned */
}

/* x with y's low byte (r1), y with x's low byte (*o), each plus 1. */
NOIPA static uint64_t swap_low(uint64_t x, uint64_t y, uint64_t *o)
{
	uint64_t a = x, c = y, r1, r2;

	__asm__ volatile("mov %%bl, %%al\n\tmov %%dl, %%cl\n\t" /* rvn: swap */
			 "lea 1(%%rax), %0\n\tlea 1(%%rcx), %1"
			 : "=&r"(r1), "=&r"(r2), "+a"(a), "+c"(c)
			 : "b"(y), "d"(x));
	*o = r2;
	return r1;
}

/* base + the carry after stc; inc (1), and after clc; inc (*o: 0). */
NOIPA static uint64_t carry_inc(uint64_t x, uint64_t base, uint64_t *o)
{
	uint64_t a = x, c = x, b = 0, d = 0, r1, r2;

	__asm__ volatile("stc\n\tinc %%rax\n\tsetc %%bl\n\t" /* rvn: carry */
			 "clc\n\tinc %%rcx\n\tsetc %%dl\n\t"
			 "lea (%6,%%rbx), %0\n\tlea (%6,%%rdx), %1"
			 : "=&r"(r1), "=&r"(r2), "+a"(a), "+c"(c), "+b"(b), "+d"(d)
			 : "r"(base));
	*o = r2;
	return r1;
}

NOIPA static uint64_t mul(uint64_t a, uint64_t b)
{
	__asm__ volatile("imul %1, %0" : "+r"(a) : "r"(b)); /* rvn: again */
	return a;
}

NOIPA static uint64_t invariant(uint64_t x, uint64_t y, uint64_t n)
{
	uint64_t s = 0, t;

	__asm__ volatile("1:\n\tmov %3, %1\n\timul %4, %1\n\tadd %1, %0\n\tdec %2\n\tjnz 1b" /* rvn: invariant */
			 : "+r"(s), "=&r"(t), "+r"(n)
			 : "r"(x), "r"(y)
			 : "cc");
	return s;
}

static volatile uint64_t global = 42;

NOIPA static uint64_t read_global(void)
{
	return global; /* rvn: contexts */
}

NOIPA static uint64_t caller_a(void)
{
	return read_global() + 1;
}

NOIPA static uint64_t caller_b(void)
{
	return read_global() + 2;
}

NOIPA static void write_back(volatile uint64_t *a, long n)
{
	for (long i = 0; i < n; i++) {
		uint64_t v = a[i]; /* rvn: readback */

		a[i] = v; /* rvn: writeback */
	}
}

/* x + y (returned) and y + x (*o), in two additions. */
NOIPA static uint64_t add_twice(uint64_t x, uint64_t y, uint64_t *o)
{
	uint64_t a = x, b = y;

	__asm__ volatile("add %3, %0\n\tadd %2, %1" /* rvn: commute */
			 : "+&r"(a), "+&r"(b)
			 : "r"(x), "r"(y)
			 : "cc");
	*o = b;
	return a;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 1000;
	uint64_t s = 0, o;

	if (n < 1)
		return 2;
	if (!strcmp(c, "bytes") || !strcmp(c, "rebytes")) {
		unsigned char *b = malloc((size_t)n);

		for (long i = 0; b && i < n; i++)
			b[i] = (unsigned char)(i * 7 + 3);
		if (!b)
			return 1;
		s = sum_bytes(b, n);
		if (!strcmp(c, "rebytes"))
			s += sum_bytes(b, n);
	} else if (!strcmp(c, "half")) {
		*(volatile uint64_t *)word = 5;
		for (long i = 0; i < n; i++) {
			s += load_word();
			store_high((uint32_t)i + 1);
		}
	} else if (!strcmp(c, "unaligned")) {
		unsigned char *b = malloc(64 * (size_t)n);
		int fd = open("/dev/urandom", O_RDONLY);

		if (!b || fd < 0 || read(fd, b, 64 * (size_t)n) != 64 * n)
			return 1;
		close(fd);
		for (long i = 0; i < n; i++)
			s ^= scramble(load8(b + 64 * i + 3));
		s = s != 0;	/* the output does not depend on the bytes */
	} else if (!strcmp(c, "swap")) {
		for (uint64_t i = 0; i < (uint64_t)n; i++) {
			s += swap_low(0x1100 + (i << 16), 0x2277 + (i << 16), &o);
			s += o;
		}
	} else if (!strcmp(c, "carry")) {
		for (uint64_t i = 0; i < (uint64_t)n; i++) {
			s += carry_inc(i * 77, i * 1000, &o);
			s += 3 * o;
		}
	} else if (!strcmp(c, "again")) {
		volatile uint64_t x = 12345, k = 777;

		for (uint64_t i = 0; i < 2 * (uint64_t)n; i++)
			s += (i & 1) ? mul(x, k) : mul(i + 1000000, k);
	} else if (!strcmp(c, "invariant")) {
		s = invariant(12345, 678, (uint64_t)n);
	} else if (!strcmp(c, "contexts")) {
		for (long i = 0; i < n; i++)
			s += caller_a() + caller_b();
	} else if (!strcmp(c, "writeback")) {
		uint64_t *a = malloc(8 * (size_t)n);

		if (!a)
			return 1;
		for (long i = 0; i < n; i++)
			a[i] = (uint64_t)i * 3;
		write_back(a, n);
		s = a[n - 1];
	} else if (!strcmp(c, "commute")) {
		for (uint64_t i = 0; i < (uint64_t)n; i++) {
			s += add_twice(i * 77, i * 1000 + 5, &o);
			s ^= o;
		}
	} else {
		fprintf(stderr, "usage: rvn_cases bytes|rebytes|half|unaligned|swap|carry|again|invariant|"
				"contexts|writeback|commute [N]\n");
		return 2;
	}
	printf("%llu\n", (unsigned long long)s);
	return 0;
}
