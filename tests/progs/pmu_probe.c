/*
 * pmu_probe: can this machine's CPU sample memory accesses precisely, with
 * their data address? Exit 0 when an Intel PEBS store event or AMD's IBS
 * op PMU opens for this process, 1 when not, saying why on stdout.
 *
 * Like dr_probe it shares no code with witch on purpose: a witch that
 * fails to find a PMU that is there must fail tests, not skip them.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int sysfs_type(const char *pmu)
{
	char path[128];
	FILE *f;
	int type = -1;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -1;
		fclose(f);
	}
	return type;
}

int main(void)
{
	struct perf_event_attr a;
	int ibs = sysfs_type("ibs_op"), fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	a.sample_period = 1 << 20;
	a.disabled = 1;
	if (ibs >= 0) {
		a.type = (unsigned)ibs;
	} else if (sysfs_type("cpu") >= 0 || sysfs_type("cpu_core") >= 0) {
		a.type = sysfs_type("cpu_core") >= 0 ? (unsigned)sysfs_type("cpu_core") : PERF_TYPE_RAW;
		a.config = 0x82d0;	/* MEM_INST_RETIRED.ALL_STORES */
		a.precise_ip = 1;
		a.exclude_kernel = 1;
	} else {
		printf("no core PMU in /sys/bus/event_source/devices (a VM without one?)\n");
		return 1;
	}
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("the precise memory event does not open: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	printf("precise memory sampling works\n");
	return 0;
}
