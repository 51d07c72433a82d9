/*
 * errnoload [ROUNDS]: reads errno most of its time. Each read goes through
 * __errno_location, whose first instruction loads a slot of libc's own
 * data; a load sample there makes --watch=pages watch that page, and
 * witch's handlers reach errno the same way: they must give the pages
 * back before they touch errno (an sqlite3 run died of it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 300000000;
	long s = 0;
	/* Through a pointer: __errno_location is `const`, and gcc would call
	 * it once for the whole loop. */
	int *(*volatile where)(void) = __errno_location;

	for (long r = 0; r < rounds; r++) {
		*where() = (int)(r & 7);
		s += *where();
	}
	printf("%ld\n", s);
	return 0;
}
