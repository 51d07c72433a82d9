/*
 * nominal.c - the CPU's nominal frequency (nominal.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/nominal.h"

static uint64_t sysfs_khz(const char *file)
{
	char path[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cpufreq/%s", file);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* The first /proc/cpuinfo line starting with key, its value. */
static int cpuinfo(const char *key, char *val, size_t cap)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, key, strlen(key)) || !colon)
			continue;
		snprintf(val, cap, "%s", colon + 1);
		found = 1;
	}
	if (f)
		fclose(f);
	return found;
}

uint64_t cpu_nominal_khz(void)
{
	char val[512], *at;
	uint64_t khz = sysfs_khz("base_frequency");
	double ghz;

	if (khz)
		return khz;
	if (cpuinfo("model name", val, sizeof(val)) && (at = strrchr(val, '@')) &&
	    sscanf(at + 1, "%lfGHz", &ghz) == 1 && ghz > 0.1 && ghz < 20)
		return (uint64_t)(ghz * 1e6 + 0.5);
	khz = sysfs_khz("cpuinfo_max_freq");
	if (khz)
		return khz;
	if (cpuinfo("cpu MHz", val, sizeof(val)) && (ghz = strtod(val, NULL)) > 100 && ghz < 20000)
		return (uint64_t)(ghz * 1e3 + 0.5);
	return 0;
}
