/*
 * dr_probe: do this machine's hardware debug registers fire? Exit 0 when a
 * write watchpoint counts the writes made to its variable, 1 when it opens
 * but counts nothing (seen on a VM resumed from a snapshot: the hypervisor
 * never delivers the debug trap), 2 when it cannot be opened at all.
 *
 * dr_probe rep-stosb: how many times does an 8-byte write watchpoint count
 * one rep stosb of 4 KiB across it? 8 where the CPU reports each byte
 * (AMD), fewer where it reports a group of iterations (Intel with fast
 * strings). Prints the count.
 *
 * The tests use it to tell a machine without working debug registers from
 * a bug in witch, and hold witch doctor's answers to it, so on purpose it
 * shares no code with witch: a broken core_perf_breakpoint() must fail
 * tests, not skip them.
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long watched;
static unsigned char buf[4096] __attribute__((aligned(64)));

static int open_watch(volatile void *at)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.size = sizeof(attr);
	attr.bp_type = HW_BREAKPOINT_W;
	attr.bp_addr = (unsigned long)at;
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

static long long count_of(int fd)
{
	long long count = 0;

	if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
		count = 0;
	close(fd);
	return count;
}

int main(int argc, char **argv)
{
	int strings = argc > 1 && !strcmp(argv[1], "rep-stosb");
	int fd = open_watch(strings ? (volatile void *)(buf + 2048) : (volatile void *)&watched), i;
	long long count;

	if (fd < 0) {
		printf("a watchpoint cannot be opened: %s\n", strerror(errno));
		return 2;
	}
	if (strings) {
		void *dst = buf;
		size_t n = sizeof(buf);

		__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(0) : "memory");
		printf("%lld\n", count_of(fd));
		return 0;
	}
	for (i = 0; i < 10; i++)
		watched = i;
	count = count_of(fd);
	if (count == 0) {
		printf("a watchpoint opens but counted 0 of 10 writes\n");
		return 1;
	}
	printf("a watchpoint counted %lld of 10 writes\n", count);
	return 0;
}
