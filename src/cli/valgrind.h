/*
 * valgrind.h - running a program under witchspy, the Valgrind tool witch
 * builds (src/spy/): for `witch spy` and the counting run of `witch cpi`.
 *
 * Valgrind's own messages go to a log file per process in the output
 * directory and are shown only when something went wrong (or with
 * --verbose), so the program's stdin, stdout, stderr and exit status pass
 * through unchanged.
 */
#ifndef WITCH_CLI_VALGRIND_H
#define WITCH_CLI_VALGRIND_H

#include <stddef.h>

/* valgrind in PATH and witchspy in witch's library directory; on failure
 * one line starting with who, and -1. Sets VALGRIND_LIB for the run. */
int vg_find(const char *who, char *valgrind, size_t vcap);

/*
 * The command line that runs path (argv[1..argc-1] its arguments) under
 * witchspy with the options tool_opts (NULL-terminated, such as
 * "--witch-tool=dead"), writing into outdir; children and exec'ed
 * programs too unless no_follow. Valgrind logs into outdir unless
 * verbose. With progress (such as "witch spy"; NULL: none) and stderr a
 * terminal, the tool shows a progress line there, starting with it, even
 * when the run's own stderr is then redirected. Free it with
 * vg_argv_free; NULL when out of memory.
 */
char **vg_argv(const char *const *tool_opts, const char *outdir, int no_follow, int verbose,
	       const char *progress, const char *path, int argc, char **argv);
void vg_argv_free(char **vargv);

/* Valgrind's verdict on a run from its logs in outdir, in one line on
 * stderr: 1 when it could not run the program, 2 after a warning, 0 if
 * all went well. */
int vg_diagnose(const char *who, const char *prog, const char *outdir, int status);

/* Copy every Valgrind log in outdir to stderr. */
void vg_show_logs(const char *outdir);

/* Remove the logs (a run that went well). */
void vg_remove_logs(const char *outdir);

#endif
