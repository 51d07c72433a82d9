/*
 * dr_probe: do this machine's hardware debug registers fire? Exit 0 when a
 * write watchpoint counts the writes made to its variable, 1 when it opens
 * but counts nothing (seen on a VM resumed from a snapshot: the hypervisor
 * never delivers the debug trap), 2 when it cannot be opened at all.
 *
 * The tests use it to tell a machine without working debug registers from
 * a bug in witch, so on purpose it shares no code with witch: a broken
 * core_perf_breakpoint() must fail tests, not skip them.
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long watched;

int main(void)
{
	struct perf_event_attr attr;
	long long count = 0;
	int fd, i;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.size = sizeof(attr);
	attr.bp_type = HW_BREAKPOINT_W;
	attr.bp_addr = (unsigned long)&watched;
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		printf("a watchpoint cannot be opened: %s\n", strerror(errno));
		return 2;
	}
	for (i = 0; i < 10; i++)
		watched = i;
	if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
		count = 0;
	close(fd);
	if (count == 0) {
		printf("a watchpoint opens but counted 0 of 10 writes\n");
		return 1;
	}
	printf("a watchpoint counted %lld of 10 writes\n", count);
	return 0;
}
