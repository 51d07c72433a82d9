/*
 * LoadSpy's 16-byte loads, exact: evens() and odds() load the N longs
 * alternately (8-byte loads, first loads), wide() loads them two by two
 * with one 16-byte load, so each load finds two previous loads (4N
 * redundant bytes from each). wide2() loads them the same way (8N
 * redundant bytes, one previous load per 16 bytes); bump() changes the
 * first long of every pair without loading it, and wide3()'s loads then
 * use 8N bytes: a 16-byte load is one event, used if any byte changed.
 */
#include <emmintrin.h>
#include <stdio.h>

#define N 1000

static long a[N] __attribute__((aligned(16)));

__attribute__((noipa)) static long evens(void)
{
	long s = 0;

	for (int i = 0; i < N; i += 2)
		s += ((volatile long *)a)[i];
	return s;
}

__attribute__((noipa)) static long odds(void)
{
	long s = 0;

	for (int i = 1; i < N; i += 2)
		s += ((volatile long *)a)[i];
	return s;
}

/* One 16-byte load per pair (movdqa), whatever the compiler would do. */
#define WIDE(name)                                                         \
	__attribute__((noipa)) static long name(void)                     \
	{                                                                  \
		__m128i s = _mm_setzero_si128();                           \
		long out[2];                                               \
		for (int i = 0; i < N; i += 2)                             \
			s = _mm_add_epi64(s, _mm_load_si128((const __m128i *)&a[i])); \
		_mm_storeu_si128((__m128i *)out, s);                       \
		return out[0] + out[1];                                    \
	}
WIDE(wide)
WIDE(wide2)
WIDE(wide3)

__attribute__((noipa)) static void bump(void)
{
	for (int i = 0; i < N; i += 2)
		((volatile long *)a)[i] = i + 1;
}

int main(void)
{
	long s = evens() + odds();

	s += wide();
	s += wide2();
	bump();
	s += wide3();
	printf("%ld\n", s);
	return 0;
}
