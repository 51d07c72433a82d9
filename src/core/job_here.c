/*
 * job_here.c - this process's place in its job, with libc (job.h): for
 * the preloaded runtimes and the CLI; the Valgrind tool has its own.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "core/job.h"
#include "core/job_here.h"

static const char *get(const char *name)
{
	return getenv(name);
}

void core_job_here(struct core_job *j)
{
	struct utsname u;

	core_job_from_env(j, get);
	j->host[0] = 0;
	if (uname(&u) == 0) {
		strncpy(j->host, u.nodename, CORE_HOST_MAX);
		j->host[CORE_HOST_MAX] = 0;
	}
}
