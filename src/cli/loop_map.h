/*
 * loop_map.h - the loop map: the loops that witch spy --tool=loop's first
 * run found, written for the Valgrind tool's loop run
 * (--witch-loops=FILE) to read.
 *
 *   witch-loops 1
 *   module <escaped path>
 *   f <lo-hex> <hi-hex>
 *   loop <id> <header-hex> <parent-id|-1> <depth> <first_line> <last_line> <escaped file|->
 *   b <lo-hex> <hi-hex>
 *   e <offset-hex>
 *   end
 *
 * Offsets are link-time addresses in the module, as in profiles; the
 * module's path is the counting run's, so the same as the loop run's.
 * `f` is a function holding loops, [its first instruction, past its
 * last); each loop follows its function, outer before inner, with all
 * its blocks (an outer loop's include its inner loops'), then the
 * first instruction of each block outside it that one of its blocks
 * leads to (`e`, where an invocation ends); ids count from 0 over the
 * file and parents name them.
 */
#ifndef WITCH_CLI_LOOP_MAP_H
#define WITCH_CLI_LOOP_MAP_H

#include <stdio.h>

struct cpi;

/* Write the loops of the analysis c (after cpi_analyze) to f. Returns how
 * many loops it wrote, -1 when out of memory or f could not be written. */
long loop_map_write(FILE *f, const struct cpi *c);

#endif
