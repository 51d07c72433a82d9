/*
 * image.c - the process image a tool profiles (image.h).
 */
#include <unistd.h>

#include "core/image.h"

static pid_t process_id;	/* getpid() differs in a vfork child */
static int ended;

void core_image_begin(void)
{
	process_id = getpid();
	ended = 0;
}

int core_image_ours(void)
{
	return !__atomic_load_n(&ended, __ATOMIC_ACQUIRE) && getpid() == process_id;
}

int core_image_end(void)
{
	return getpid() == process_id && !__atomic_exchange_n(&ended, 1, __ATOMIC_ACQ_REL);
}
