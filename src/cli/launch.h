/*
 * launch.h - run the target as a child and hand its fate back unchanged.
 */
#ifndef WITCH_LAUNCH_H
#define WITCH_LAUNCH_H

/* Fork, exec argv[0] (a resolved path) with argv, wait. Signals that would
 * stop witch are forwarded to the child. Returns the raw wait status, or -1
 * if the program could not be started (message already printed). */
int launch_and_wait(const char *path, char **argv, const char *who);

/* launch_and_wait for a counting run, its stdout and stderr going nowhere:
 * the program speaks in the run the user sees (witch cpi's sampled run,
 * witch spy --tool=loop's loop run). Returns the wait status, or -1 after
 * one line starting with who. */
int launch_quietly(const char *path, char **argv, const char *who);

/* Leave witch the way the target left: same exit code or same signal. */
void exit_like(int status) __attribute__((noreturn));

#endif
