/* An AVX-512 instruction, which Valgrind 3.19 cannot decode: witch spy must
 * say so in one line instead of failing obscurely. */
#include <stdio.h>

int main(void)
{
	puts("before");
	fflush(stdout);
	__asm__ volatile("vpxord %%zmm1, %%zmm1, %%zmm1" ::: "xmm1");
	puts("after");
	return 0;
}
