/*
 * phdr_loop [ROUNDS] - the dynamic loader's lock taken again and again:
 * dl_iterate_phdr holds it while its callback runs, dlopen and dlclose
 * while they change the list of objects. Prints 1.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink[64];

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
	long *n = data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++)
		sink[i & 63] += (long)info->dlpi_phdr[i].p_vaddr;
	++*n;
	return 0;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 2000, n = 0, r;

	for (r = 0; r < rounds; r++) {
		dl_iterate_phdr(visit, &n);
		if (r % 50 == 0) {
			void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);

			if (h)
				dlclose(h);
		}
	}
	printf("%ld\n", n > 0);
	return 0;
}
