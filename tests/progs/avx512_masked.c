/*
 * avx512_masked - masked AVX-512 stores, as glibc's memset, memcpy and
 * strlen make them on CPUs with AVX-512: one 64-byte line written by a
 * store masked to its low half, one masked to its high half, then an
 * unmasked one over all of it, and a read of one byte. Each masked store
 * spans the whole line but writes only the half its opmask selects.
 *
 * Truth (dead stores): store_low's and store_high's bytes are killed by
 * store_all; store_all's are killed by the next round's masked stores,
 * but for the byte read. store_high never writes store_low's bytes.
 *
 * usage: avx512_masked [ROUNDS]; exits 3 on a CPU without AVX512BW.
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned char line[64] __attribute__((aligned(64)));

__attribute__((noinline, target("avx512bw"))) static void store_low(void)
{
	__asm__ volatile("movq $0xffffffff, %%rax\n\t"
			 "kmovq %%rax, %%k1\n\t"
			 "vpternlogd $0xff, %%zmm16, %%zmm16, %%zmm16\n\t"
			 "vmovdqu8 %%zmm16, %0%{%%k1%}"
			 : "=m"(line) : : "rax", "xmm16", "k1");
}

__attribute__((noinline, target("avx512bw"))) static void store_high(void)
{
	__asm__ volatile("movq $0xffffffff00000000, %%rax\n\t"
			 "kmovq %%rax, %%k2\n\t"
			 "vpternlogd $0xff, %%zmm17, %%zmm17, %%zmm17\n\t"
			 "vmovdqu8 %%zmm17, %0%{%%k2%}"
			 : "=m"(line) : : "rax", "xmm17", "k2");
}

__attribute__((noinline, target("avx512bw"))) static void store_all(void)
{
	__asm__ volatile("vpxord %%zmm18, %%zmm18, %%zmm18\n\t"
			 "vmovdqu64 %%zmm18, %0"
			 : "=m"(line) : : "xmm18");
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 20000000, r, sum = 0;

	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx512bw")) {
		puts("this CPU has no AVX512BW");
		return 3;
	}
	for (r = 0; r < rounds; r++) {
		store_low();
		store_high();
		store_all();
		sum += *(volatile unsigned char *)&line[5];
	}
	__asm__ volatile("vzeroupper");
	printf("%ld\n", sum);
	return 0;
}
