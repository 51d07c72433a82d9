/*
 * tool.h - what a tool over the core defines: libwitch.so (src/runtime)
 * and libwitchcausal.so (src/causal) are two tools over one core, as
 * Valgrind's tools sit on its core. The core's interposition
 * (interpose.c) owns the libc calls through which the program could
 * disturb or end a run, and calls these hooks of the tool linked with it.
 * They may run in a signal handler, in a vfork child, or with the image
 * about to go: async-signal-safe, and quick.
 */
#ifndef WITCH_CORE_TOOL_H
#define WITCH_CORE_TOOL_H

/* Inside the tool's own signal handler on this thread: the masks it sets
 * there are its own, and pass unchanged. */
int tool_in_handler(void);

/* The image ends: _exit(status >= 0), or a fatal signal (status = -signal).
 * complete is 0 on the crash path. */
void tool_process_ended(int complete, int status);

/* exec is about to replace the image, and came back: it failed and the
 * image goes on. */
void tool_before_exec(void);
void tool_exec_failed(void);

#endif
