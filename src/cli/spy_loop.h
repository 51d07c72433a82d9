/*
 * spy_loop.h - witch spy --tool=loop's first run, the loop-finding run:
 * the program counted under witchspy (tool count, as witch cpi's counting
 * run), its loops found by witch cpi's analysis and written as the loop
 * map that the second run, the loop run, watches (loop_map.h).
 */
#ifndef WITCH_CLI_SPY_LOOP_H
#define WITCH_CLI_SPY_LOOP_H

#include <stddef.h>

/* What the loop-finding run runs, and where. */
struct spy_loop_run {
	const char *who;
	const char *valgrind;	/* vg_find's */
	const char *outdir;	/* absolute; the run writes into outdir/cfg */
	int no_follow;
	const char *progress;	/* vg_argv's: the progress line's label, NULL: none */
	const char *path;	/* the program, resolved */
	int argc;
	char **argv;		/* as given: argv[0] names it in messages */
	int alone;		/* the command's only run (--run=counting): the
				   program's output shown, its stdin its own */
};

/*
 * Run it (unless alone, with its stdout and stderr discarded and its
 * stdin saved for the loop run, stdin then being the copy), its wait
 * status in *status; analyse its profiles (under a launcher, this rank's)
 * and write the map; its absolute path in map. Returns 0, or the exit
 * status witch spy ends with after one line starting with who (2:
 * Valgrind could not run the program, or the map could not be made). A
 * run killed before it wrote its profile ends witch the way it ended.
 */
int spy_loop_find(const struct spy_loop_run *r, char *map, size_t cap, int *status);

/* Where the map of the runs into outdir (absolute) is: a rank has its
 * own. 0, or 2 after one line starting with who. */
int spy_loop_map_path(const char *who, const char *outdir, char *map, size_t cap);

#endif
