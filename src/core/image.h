/*
 * image.h - the process image a tool profiles. Its end (exit, _exit, a
 * fatal signal) is handled once, by whichever thread gets there first,
 * and only in the process that began it: a vfork child runs in its
 * parent's memory until it execs or exits, and must neither end nor write
 * its parent's profile. Async-signal-safe.
 */
#ifndef WITCH_CORE_IMAGE_H
#define WITCH_CORE_IMAGE_H

/* An image begins in this process: at start, and in a fork child. */
void core_image_begin(void);

/* Running in the process that began the image, and the image has not ended. */
int core_image_ours(void);

/* The image ends: 1 for the first caller in the process that began it,
 * 0 for any other. */
int core_image_end(void);

#endif
