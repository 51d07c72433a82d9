/*
 * job.c - a measuring command as one rank of a launcher's job (job.h).
 */
#include <stdio.h>
#include <string.h>

#include "cli/job.h"
#include "core/job_here.h"
#include "core/outname.h"

static struct core_job job;
static char tag[CORE_HOST_MAX + 32];
static int known;

const struct core_job *cli_job(void)
{
	size_t i, n;

	if (!known) {
		core_job_here(&job);
		if (job.rank >= 0) {
			n = (size_t)snprintf(tag, sizeof(tag), "-h");
			for (i = 0; job.host[i]; i++)
				tag[n++] = core_job_name_char(job.host[i]);
			snprintf(tag + n, sizeof(tag) - n, "-r%lld", (long long)job.rank);
		}
		known = 1;
	}
	return &job;
}

int cli_job_file(const char *name, char sep, const char *suffix)
{
	const struct core_job *j = cli_job();

	return j->rank < 0 || core_outname_of_job(name, sep, suffix, j);
}

int cli_job_quiet(void)
{
	return cli_job()->rank > 0;
}

const char *cli_job_tag(void)
{
	cli_job();
	return tag;
}

int cli_job_not_launcher(const char *who, const char *prog, char *err, size_t errlen)
{
	const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;

	if (!core_job_is_launcher(prog))
		return 0;
	snprintf(err, errlen, "%s starts the ranks of a parallel job, it is not one: run %s under "
		 "it, as `%s [ITS OPTIONS] %s [OPTIONS] -- PROGRAM [ARGS]`, and each rank is measured",
		 base, who, base, who);
	return -1;
}
