/*
 * Prometheus's first bug (Table III: removeAll on a list): for each value
 * of one list, scan the other from its start.
 *
 *   loop_scan bad|fixed [N [M [REPS]]]
 *
 * Counts how many of M wanted values occur among N haystack values (half
 * of them do), REPS times. bad: count_bad() scans the haystack for each
 * wanted value (the marked outer loop): each of its iterations re-reads
 * the same (address, value) pairs the earlier ones read. fixed:
 * count_fixed() marks the haystack's values in a table once, then reads
 * one entry per wanted value. With REPS > 1, main's repetition loop runs
 * the whole count again: that is the counting loop's redundancy, not its
 * own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOIPA __attribute__((noipa))

NOIPA static long count_bad(const int *hay, long n, const int *want, long m)
{
	long found = 0;

	for (long k = 0; k < m; k++) { /* loop: bug */
		for (long i = 0; i < n; i++)
			if (hay[i] == want[k]) {
				found++;
				break;
			}
	}
	return found;
}

NOIPA static long count_fixed(const int *hay, long n, const int *want, long m, unsigned char *seen,
			      long range)
{
	long found = 0;

	memset(seen, 0, (size_t)range);
	for (long i = 0; i < n; i++)
		seen[hay[i]] = 1;
	for (long k = 0; k < m; k++) /* loop: fixed */
		found += seen[want[k]];
	return found;
}

int main(int argc, char **argv)
{
	int bad = argc > 1 && !strcmp(argv[1], "bad");
	long n = argc > 2 ? atol(argv[2]) : 2000, m = argc > 3 ? atol(argv[3]) : 1000;
	long reps = argc > 4 ? atol(argv[4]) : 1, total = 0;
	int *hay = malloc(sizeof(int) * (size_t)n), *want = malloc(sizeof(int) * (size_t)m);
	unsigned char *seen = malloc((size_t)(4 * n + 1));

	if (argc < 2 || (!bad && strcmp(argv[1], "fixed")) || n < 1 || m < 1 || reps < 1 || !hay ||
	    !want || !seen) {
		fprintf(stderr, "usage: loop_scan bad|fixed [N [M [REPS]]]\n");
		return 2;
	}
	for (long i = 0; i < n; i++)
		hay[i] = (int)(2 * i);
	/* Every other wanted value is in the haystack, spread over it. */
	for (long k = 0; k < m; k++)
		want[k] = (int)((k * 7919) % (2 * n));
	for (long r = 0; r < reps; r++) /* loop: repeat */
		total += bad ? count_bad(hay, n, want, m) : count_fixed(hay, n, want, m, seen, 4 * n + 1);
	printf("%ld\n", total);
	free(hay);
	free(want);
	free(seen);
	return 0;
}
