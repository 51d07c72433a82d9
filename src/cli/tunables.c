/*
 * tunables.c - the same glibc string routines natively and under Valgrind.
 *
 * glibc chooses memcpy, memset, strlen... at load time from CPUID, and sizes
 * their thresholds from the caches CPUID reports. Valgrind 3.19 presents an
 * Intel Haswell without AVX-512 and with its own cache sizes, so natively a
 * program may run __memset_avx512_unaligned_erms where under Valgrind it
 * runs __memset_avx2_unaligned_erms, or switch to `rep movsb` or
 * non-temporal stores at other sizes. Pairs inside those routines would not
 * match between `witch record` and `witch spy`.
 *
 * Both commands therefore set the same GLIBC_TUNABLES (checked with
 * `ld.so --list-diagnostics` natively and under Valgrind):
 *   - no AVX-512 (Valgrind cannot run it): the AVX2/EVEX-free variants;
 *   - the "preferred" flags glibc sets for Intel, which Valgrind reports;
 *   - fixed cache sizes and rep movsb/stosb and non-temporal thresholds.
 * glibc stops using `rep movsb` above the L2 size on AMD and above the
 * non-temporal threshold elsewhere (Valgrind's CPU), so on AMD the
 * non-temporal threshold is set to the host's L2 size to make them agree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/tunables.h"
#include "core/perf.h"

int glibc_tunables(char *buf, size_t cap)
{
	long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	long nt = 0x200000;
	int n;

	if (core_cpu_vendor() == CORE_CPU_AMD && l2 >= 0x10000 && l2 <= 0x4000000)
		nt = l2;
	n = snprintf(buf, cap,
		     "glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,"
		     "-AVX512ER,-AVX512PF,Fast_Rep_String,Fast_Unaligned_Load,"
		     "Fast_Unaligned_Copy,Prefer_PMINUB_for_stringop"
		     ":glibc.cpu.x86_data_cache_size=0x8000"
		     ":glibc.cpu.x86_shared_cache_size=0x800000"
		     ":glibc.cpu.x86_non_temporal_threshold=0x%lx"
		     ":glibc.cpu.x86_rep_movsb_threshold=0x2000"
		     ":glibc.cpu.x86_rep_stosb_threshold=0x800",
		     nt);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

void set_glibc_tunables(void)
{
	const char *old = getenv("GLIBC_TUNABLES");
	char ours[1024], all[4096];

	if (glibc_tunables(ours, sizeof(ours)) < 0)
		return;
	if (old && *old && (size_t)snprintf(all, sizeof(all), "%s:%s", ours, old) < sizeof(all))
		setenv("GLIBC_TUNABLES", all, 1);
	else
		setenv("GLIBC_TUNABLES", ours, 1);
}
