/*
 * module_loops.h - the natural loops of every function of one ELF file,
 * found in its machine code before anything runs, written as the loop map
 * that witchspy's loop tool reads (--witch-tool=loop):
 *
 *   witch-loops 1
 *   module <escaped path>
 *   f <lo-hex> <hi-hex>
 *   loop <id> <header-hex> <parent-id|-1> <depth> <first_line> <last_line> <escaped file|->
 *   b <lo-hex> <hi-hex>
 *   e <offset-hex>
 *   end
 *
 * Offsets are link-time addresses in the module, as in profiles. `f` is a
 * function holding loops, [its first byte, past its last); each loop
 * follows its function, outer before inner, with all its blocks (an outer
 * loop's include its inner loops'), then the first instruction of each
 * block outside it that one of its blocks leads to (`e`, where an
 * invocation ends); ids count from 0 over the file and parents name them.
 */
#ifndef WITCH_CLI_MODULE_LOOPS_H
#define WITCH_CLI_MODULE_LOOPS_H

#include <stddef.h>
#include <stdio.h>

/* Write the map of the ELF file at path to f. Returns how many loops it
 * wrote, or -1 with the reason in err. */
long module_loops_write(FILE *f, const char *path, char *err, size_t errlen);

#endif
