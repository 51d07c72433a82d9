/*
 * test_job.c - a process's place in a parallel job (src/core/job.c): the
 * launchers' variables, in their order, and the launchers' programs.
 */
#include <string.h>

#include "core/job.h"
#include "tap.h"

/* An environment of NAME=VALUE strings. */
static const char *const *env;

static const char *get(const char *name)
{
	size_t n = strlen(name);
	const char *const *e;

	for (e = env; *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static struct core_job from(const char *const *vars)
{
	struct core_job j;

	env = vars;
	memset(&j, 0x55, sizeof(j));
	core_job_from_env(&j, get);
	return j;
}

static void test_env(void)
{
	struct core_job j;

	j = from((const char *const[]){ "HOME=/", NULL });
	tap_ok(j.rank == -1 && j.size == 0, "no launcher: no rank");
	j = from((const char *const[]){ "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4",
					"PMIX_RANK=3", NULL });
	tap_ok(j.rank == 3 && j.size == 4, "Open MPI's rank and size");
	j = from((const char *const[]){ "PMI_RANK=7", "PMI_SIZE=48", NULL });
	tap_ok(j.rank == 7 && j.size == 48, "MPICH's (PMI)");
	j = from((const char *const[]){ "PMIX_RANK=5", NULL });
	tap_ok(j.rank == 5 && j.size == 0, "PMIx's rank, size unknown");
	j = from((const char *const[]){ "PMIX_RANK=5", "SLURM_PROCID=5", "SLURM_NTASKS=8", NULL });
	tap_ok(j.rank == 5 && j.size == 8, "srun --mpi=pmix: PMIx's rank, Slurm's size for the same rank");
	j = from((const char *const[]){ "PMIX_RANK=5", "SLURM_PROCID=0", "SLURM_NTASKS=1", NULL });
	tap_ok(j.rank == 5 && j.size == 0, "a batch step's Slurm pair of another rank gives no size");
	j = from((const char *const[]){ "PMIX_RANK=5", "SLURM_PROCID=5", "SLURM_NTASKS=5", NULL });
	tap_ok(j.rank == 5 && j.size == 0, "nor one whose size does not hold the rank");
	j = from((const char *const[]){ "SLURM_PROCID=12", "SLURM_NTASKS=16", NULL });
	tap_ok(j.rank == 12 && j.size == 16, "srun's");
	j = from((const char *const[]){ "SLURM_PROCID=0", "SLURM_NTASKS=1", "OMPI_COMM_WORLD_RANK=2",
					"OMPI_COMM_WORLD_SIZE=8", NULL });
	tap_ok(j.rank == 2 && j.size == 8, "mpirun in a Slurm allocation: MPI's rank, not the batch step's");
	j = from((const char *const[]){ "OMPI_COMM_WORLD_RANK=4", "OMPI_COMM_WORLD_SIZE=4", NULL });
	tap_ok(j.rank == -1, "a rank not below the size counts as none");
	j = from((const char *const[]){ "PMI_RANK=x1", "PMI_SIZE=4", NULL });
	tap_ok(j.rank == -1, "nor one that is not a whole number");
	j = from((const char *const[]){ "PMI_RANK=", "SLURM_PROCID=1", NULL });
	tap_ok(j.rank == -1, "an empty one neither, and the next launcher's is not taken for it");
	j = from((const char *const[]){ "PMI_RANK=99999999999999999999", NULL });
	tap_ok(j.rank == -1, "nor a number out of range");
}

static void test_launchers(void)
{
	tap_ok(core_job_is_launcher("/usr/bin/orted") && core_job_is_launcher("mpirun") &&
	       core_job_is_launcher("/opt/slurm/sbin/slurmstepd") && core_job_is_launcher("mpiexec.hydra"),
	       "launchers are known by their program's name");
	tap_ok(!core_job_is_launcher("/usr/bin/orted2") && !core_job_is_launcher("./app") &&
	       !core_job_is_launcher("/srun/app") && !core_job_is_launcher(NULL) &&
	       !core_job_is_launcher(""), "other programs are not");
	tap_ok(core_job_name_char('a') == 'a' && core_job_name_char('-') == '-' &&
	       core_job_name_char('.') == '.' && core_job_name_char('/') == '_' &&
	       core_job_name_char(' ') == '_' && core_job_name_char('\xe9') == '_',
	       "host names in file names: only safe bytes");
}

int main(void)
{
	test_env();
	test_launchers();
	return tap_done();
}
