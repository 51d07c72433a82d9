/*
 * job_here.h - this process's place in a parallel job (core/job.h), from
 * its environment and uname(2). Not for handlers (getenv): the runtimes
 * call it when an image starts and keep the result.
 */
#ifndef WITCH_CORE_JOB_HERE_H
#define WITCH_CORE_JOB_HERE_H

#include "core/job.h"

void core_job_here(struct core_job *j);

#endif
