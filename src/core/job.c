/*
 * job.c - the launcher's rank and world size, and its programs (job.h).
 */
#include "core/job.h"

static const char *const launchers[] = {
	"mpirun", "mpiexec", "orterun", "orted", "prte", "prted", "prterun", "hydra_pmi_proxy",
	"mpiexec.hydra", "srun", "slurmstepd", NULL,
};

/* The variables of one launcher: its rank and its size (NULL: none). */
static const char *const vars[][2] = {
	{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },
	{ "PMI_RANK", "PMI_SIZE" },
	{ "PMIX_RANK", NULL },
	{ "SLURM_PROCID", "SLURM_NTASKS" },
};

/* A whole decimal number below 2^62; -1 when s is not one. */
static int64_t whole(const char *s)
{
	int64_t v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (INT64_C(1) << 62) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* The world size of a launcher that gives none (PMIx's): that of a later
 * launcher's pair naming the same rank (srun --mpi=pmix sets Slurm's
 * too), else 0. Another rank there is another job's (a batch step's). */
static uint64_t size_elsewhere(core_getenv *get, size_t from, int64_t rank)
{
	size_t i;

	for (i = from; i < sizeof(vars) / sizeof(vars[0]); i++) {
		int64_t size = vars[i][1] ? whole(get(vars[i][1])) : -1;

		if (whole(get(vars[i][0])) == rank && size > rank)
			return (uint64_t)size;
	}
	return 0;
}

void core_job_from_env(struct core_job *j, core_getenv *get)
{
	size_t i;

	j->rank = -1;
	j->size = 0;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		int64_t rank = whole(get(vars[i][0]));
		int64_t size = vars[i][1] ? whole(get(vars[i][1])) : -1;

		if (!get(vars[i][0]))
			continue;
		if (rank < 0 || (size >= 0 && rank >= size))
			return;	/* the launcher's, but unreadable: no rank */
		j->rank = rank;
		j->size = size > 0 ? (uint64_t)size : size_elsewhere(get, i + 1, rank);
		return;
	}
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

int core_job_is_launcher(const char *path)
{
	const char *base = path, *s;
	size_t i;

	if (!path)
		return 0;
	for (s = path; *s; s++)
		if (*s == '/')
			base = s + 1;
	for (i = 0; launchers[i]; i++)
		if (same(base, launchers[i]))
			return 1;
	return 0;
}

char core_job_name_char(char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '.' || c == '-' || c == '_')
		return c;
	return '_';
}
