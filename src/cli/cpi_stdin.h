/*
 * cpi_stdin.h - witch cpi's stdin, given alike to its two runs.
 */
#ifndef WITCH_CLI_CPI_STDIN_H
#define WITCH_CLI_CPI_STDIN_H

#include <sys/types.h>

struct cpi_stdin {
	int saved;		/* the copy, -1 when stdin is a terminal or closed */
	int stream;		/* stdin is a pipe or the like: streamed to the first run */
	pid_t tee;		/* the process that streams it, 0 when none */
};

/* Decide how stdin is given; -2 after an error (said, starting with who). */
int cpi_stdin_open(struct cpi_stdin *s, const char *who, const char *outdir);

/* Before the first run: its stdin. A file is copied whole first; a pipe
 * is streamed, copied as it goes. -2 after an error (said). */
int cpi_stdin_first(struct cpi_stdin *s, const char *who);

/* After the first run: stop streaming, and give the second run the copy
 * from its start. */
void cpi_stdin_second(struct cpi_stdin *s);

#endif
