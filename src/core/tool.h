/*
 * tool.h - what a tool over the core defines: libwitch.so (src/runtime)
 * and libwitchcausal.so (src/causal) are two tools over one core, as
 * Valgrind's tools sit on its core. The core's interposition
 * (interpose.c) owns the libc calls through which the program could
 * disturb or end a run, and its pthread_create (thread.c) the threads the
 * program creates; both call these hooks of the tool linked with them.
 * The process hooks may run in a signal handler, in a vfork child, or
 * with the image about to go: async-signal-safe, and quick.
 */
#ifndef WITCH_CORE_TOOL_H
#define WITCH_CORE_TOOL_H

#include <stdint.h>

/* Inside the tool's own signal handler on this thread: the masks it sets
 * there are its own, and pass unchanged. */
int tool_in_handler(void);

/* The image ends: _exit(status >= 0), or a fatal signal (status = -signal).
 * complete is 0 on the crash path. */
void tool_process_ended(int complete, int status);

/* exec is about to replace the image with the program at path (a name
 * to look up in PATH; NULL: unknown, as for fexecve), and came
 * back: it failed and the image goes on. */
void tool_before_exec(const char *path);
void tool_exec_failed(void);

/* --- threads (thread.c) --- */

/* The program creates a thread: 0, with in *inherit what the new thread
 * takes from its creator, or -1 while the tool is off (the thread runs
 * unseen). */
int tool_thread_creating(uint64_t *inherit);
/* In a thread the program created, before its function runs. */
void tool_thread_begin(uint64_t inherit);
/* The calling thread ends (core_threads_init says when); it may be
 * called again after. */
void tool_thread_end(void);

#endif
