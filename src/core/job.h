/*
 * job.h - a process's place in a parallel job: the rank and the world
 * size that the launcher (Open MPI's mpirun, MPICH's Hydra, Slurm's srun)
 * gives each process it starts, and the host it runs on. Profiles record
 * them and carry them in their names, so that the ranks of many machines
 * can write into one shared directory (docs/mpi.md).
 *
 * Also the launchers' own programs (mpirun, orted, srun...), which witch
 * never measures as if they were the application. Freestanding: the
 * Valgrind tool uses it too, with its own getenv.
 */
#ifndef WITCH_CORE_JOB_H
#define WITCH_CORE_JOB_H

#include <stddef.h>
#include <stdint.h>

#define CORE_HOST_MAX 64	/* a host name's bytes, as uname(2) keeps them */

struct core_job {
	int64_t rank;		/* -1: not started by a launcher */
	uint64_t size;		/* ranks in the job, 0: unknown */
	char host[CORE_HOST_MAX + 1];	/* "" when unknown */
};

typedef const char *core_getenv(const char *name);

/*
 * The rank and world size from the launcher's variables, the first pair
 * set of: OMPI_COMM_WORLD_RANK/SIZE (Open MPI), PMI_RANK/SIZE (MPICH's
 * Hydra, Intel MPI), PMIX_RANK (PMIx launchers), SLURM_PROCID with
 * SLURM_NTASKS (srun). The MPI ones come first: mpirun inside a Slurm
 * allocation leaves every rank the batch step's SLURM_PROCID. PMIx gives
 * no size: it is the size of a later pair with the same rank (srun
 * --mpi=pmix sets Slurm's too), if any. A rank that
 * is not a whole number (or not below the size) counts as none; the host
 * is left alone.
 */
void core_job_from_env(struct core_job *j, core_getenv *get);

/* Whether the program at path (or named so) is a launcher's own: mpirun,
 * mpiexec, orterun, orted, prte, prted, prterun, hydra_pmi_proxy,
 * mpiexec.hydra, srun, slurmstepd. NULL is none. */
int core_job_is_launcher(const char *path);

/* Bytes of a host name as file names carry them: letters, digits, '.',
 * '-' and '_' as they are, any other as '_'. */
char core_job_name_char(char c);

#endif
