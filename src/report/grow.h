/*
 * grow.h - growing arrays for the report side (which may allocate).
 */
#ifndef WITCH_REPORT_GROW_H
#define WITCH_REPORT_GROW_H

#include <stddef.h>

/*
 * Make *arr (of *cap elements of size bytes) hold at least need elements,
 * doubling from 16. Returns 0, or -1 when out of memory (*arr unchanged).
 */
int wr_grow(void **arr, size_t *cap, size_t need, size_t size);

#endif
