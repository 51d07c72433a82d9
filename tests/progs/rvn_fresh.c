/*
 * No redundancy: every computation takes at least one operand never seen
 * before, so witch spy --tool=rvn should find almost nothing (at most 5 %).
 *
 *   rvn_fresh [MODE] [N]
 *
 * MODE is ignored (bad and fixed run the same code). fill() stores N
 * outputs of an xorshift generator, hash() folds them into an FNV-style
 * hash walking backwards (a forward walk would repeat fill's index and
 * address arithmetic), and mix() runs the generator 2N more times in
 * registers. Each loop runs once, so no counter restarts from a constant.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOIPA __attribute__((noipa))

NOIPA static unsigned long fill(unsigned long *a, long n, unsigned long x)
{
	for (long i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		a[i] = x;
	}
	return x;
}

NOIPA static unsigned long hash(const unsigned long *a, long n)
{
	unsigned long h = 14695981039346656037ul;

	for (long i = n - 1; i >= 0; i--)
		h = (h ^ a[i]) * 1099511628211ul;
	return h;
}

NOIPA static unsigned long mix(unsigned long x, long n)
{
	unsigned long s = 0;

	for (long i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		s = s * 31 + (x >> 17);
	}
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1l << 19;
	unsigned long *a = malloc((n > 0 ? n : 1) * sizeof *a), x;

	if (!a)
		return 1;
	x = fill(a, n, 88172645463325252ul);
	printf("%lu\n", hash(a, n) ^ mix(x, 2 * n));
	free(a);
	return 0;
}
