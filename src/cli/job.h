/*
 * job.h - a measuring command run by a launcher, once per rank (mpirun
 * -np 64 witch record -o DIR -- ./app): every rank's witch writes into
 * the same DIR, so each cleans, counts and diagnoses only the files of
 * its own host and rank (core/outname.h names them), and only rank 0
 * says where they all are (docs/mpi.md).
 */
#ifndef WITCH_CLI_JOB_H
#define WITCH_CLI_JOB_H

#include "core/job.h"

/* This process's place in its job, read once. */
const struct core_job *cli_job(void);

/* Whether the file name (no directory; its fields split by sep, ending
 * in suffix) is this process's to clean, count or read: any without a
 * launcher, this host's and rank's under one. */
int cli_job_file(const char *name, char sep, const char *suffix);

/* Whether to leave the summary line to rank 0 (this is another rank). */
int cli_job_quiet(void);

/* What a file name of this process has before its pid: "" without a
 * launcher, "-hHOST-rRANK" (the host as names carry it) under one. */
const char *cli_job_tag(void);

/* "witch record: `mpirun` is a launcher ..." when prog (as given) is one:
 * witch runs under the launcher, not around it. 0, or -1 with the reason
 * in err. */
int cli_job_not_launcher(const char *who, const char *prog, char *err, size_t errlen);

#endif
