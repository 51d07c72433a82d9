#include <stdlib.h>

#include "report/grow.h"

int wr_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *a;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	a = realloc(*arr, ncap * size);
	if (!a)
		return -1;
	*arr = a;
	*cap = ncap;
	return 0;
}
