/*
 * uprobe_probe: do uprobes count here? Exit 0 when a uprobe on a function
 * of this program counts each of 10 calls, 1 when it opens but miscounts,
 * 2 when it cannot be opened (no uprobe PMU, or not root/CAP_PERFMON).
 *
 * Like dr_probe, it tells a machine where witch causal --progress cannot
 * count visits from a bug in witch, so on purpose it shares no code with
 * witch: a broken core_uprobe_open() must fail tests, not skip them.
 */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int calls;

__attribute__((noinline)) static void target(void)
{
	calls++;
}

/* The file offset of `target` and its file, from /proc/self/maps. */
static int locate(char *path, unsigned long long *off)
{
	unsigned long long lo, hi, pgoff, a = (uintptr_t)target;
	char line[PATH_MAX + 256];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %s", &lo, &hi, &pgoff, path) == 4 &&
		    a >= lo && a < hi) {
			*off = a - lo + pgoff;
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found;
}

int main(void)
{
	struct perf_event_attr attr;
	char path[PATH_MAX];
	unsigned long long off, count = 0;
	int type = -1, fd, i;
	FILE *t = fopen("/sys/bus/event_source/devices/uprobe/type", "r");

	if (!t || fscanf(t, "%d", &type) != 1) {
		printf("no uprobe perf PMU (/sys/bus/event_source/devices/uprobe/type)\n");
		return 2;
	}
	fclose(t);
	if (!locate(path, &off)) {
		printf("cannot find this program's code in /proc/self/maps\n");
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.type = type;
	attr.size = sizeof(attr);
	attr.config1 = (uintptr_t)path;
	attr.config2 = off;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		printf("a uprobe cannot be opened: %s\n", strerror(errno));
		return 2;
	}
	for (i = 0; i < 10; i++)
		target();
	if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
		count = 0;
	close(fd);
	printf("a uprobe counted %llu of 10 calls\n", count);
	return count == 10 ? 0 : 1;
}
