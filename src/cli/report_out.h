/*
 * report_out.h - witch report -o FILE: the report into a file, whole or
 * not at all.
 *
 * The renderers write to stdout. With -o, stdout is pointed at a
 * temporary file beside FILE for the report's time, and the file takes
 * FILE's name only once the report is complete: a report that fails
 * halfway never leaves a truncated FILE, nor clobbers the one before.
 * A FILE that exists and is no regular file (/dev/stdout, a pipe) is
 * written in place; a symbolic link's target is what gets replaced.
 */
#ifndef WITCH_CLI_REPORT_OUT_H
#define WITCH_CLI_REPORT_OUT_H

struct report_out {
	const char *path;	/* FILE as given */
	char *target;		/* the regular file to replace (symlinks resolved) */
	char *tmp;		/* the temporary file being written, NULL: FILE
				   itself (a device or a pipe: /dev/stdout) */
	int saved_stdout;	/* the descriptor stdout had, -1: none taken */
};

/* Point stdout at a temporary file beside path. 0, or -1 after one line
 * on stderr (who: "witch report") saying why not. */
int report_out_open(struct report_out *o, const char *who, const char *path);

/* Give stdout back; keep the file as path when ok (0, or -1 after one
 * line on stderr), else remove it. Nothing to do without -o. */
int report_out_close(struct report_out *o, const char *who, int ok);

#endif
