/*
 * cpuprobe.c - see cpuprobe.h. The string probe takes a signal per trap,
 * as witch record does, to read RDI where the CPU reports the hit.
 */
#include <cpuid.h>
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "cli/cpuprobe.h"
#include "core/perf.h"

#define PROBE_BYTES 4096
#define WATCH_AT 2048

static uint8_t probe_buf[PROBE_BYTES] __attribute__((aligned(64)));
static volatile int traps;
static volatile uintptr_t first_rdi;

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	const ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	if (traps++ == 0)
		first_rdi = (uintptr_t)uc->uc_mcontext.gregs[REG_RDI];
}

static void rep_stosb(void *dst, size_t n)
{
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(0) : "memory");
}

int probe_string_hits(struct string_hits *r, char *err, size_t errlen)
{
	uintptr_t watch = (uintptr_t)probe_buf + WATCH_AT;
	struct sigaction sa, old;
	int sig = SIGRTMIN + 2, fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	fd = core_perf_breakpoint(HW_BREAKPOINT_W, watch, 8, 0);
	if (fd < 0) {
		snprintf(err, errlen, "no watchpoint to probe with (%s)", strerror(errno));
		return -1;
	}
	if (sigaction(sig, &sa, &old) < 0 || core_perf_route(fd, sig, (int)syscall(SYS_gettid)) < 0) {
		snprintf(err, errlen, "cannot route the watchpoint's signal (%s)", strerror(errno));
		close(fd);
		return -1;
	}
	traps = 0;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	rep_stosb(probe_buf, sizeof(probe_buf));
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(fd);
	sigaction(sig, &old, NULL);
	if (!traps) {
		snprintf(err, errlen, "the watchpoint never fired");
		return -1;
	}
	r->traps = traps;
	r->past = (long)(first_rdi - (watch + 8));
	return 0;
}

int cpu_has_avx512(void)
{
	unsigned a, b, c, d, lo, hi;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & bit_AVX512F))
		return 0;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return 0;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 0xe6) == 0xe6;	/* SSE, AVX and the three AVX-512 states */
}

const char *cpu_fast_strings(void)
{
	unsigned a, b, c, d;
	int erms, fsrm;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return "none";
	erms = (b >> 9) & 1;	/* enhanced rep movsb/stosb */
	fsrm = (d >> 4) & 1;	/* fast short rep movsb */
	return erms && fsrm ? "ERMS FSRM" : erms ? "ERMS" : fsrm ? "FSRM" : "none";
}
