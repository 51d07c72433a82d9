/*
 * test_cpi.c - OptiWISE §IV-E's merging of loops that share a header
 * (report/cpi_loops.c), on Figure 6's five loops with the frequencies
 * that give Table I, and on its edge cases; and the functions whose own
 * code took the most time, which the reports show the code of.
 */
#include "tap.h"
#include "report/cpi.h"

#include <stdint.h>
#include <string.h>

static uint64_t set(const char *blocks)
{
	uint64_t s = 0;

	for (; *blocks; blocks++)
		s |= 1ULL << (*blocks - 'A');
	return s;
}

/* Levels for loops given as block letters and back-edge counts. */
static int levels(const char *const *loops, const uint64_t *counts, size_t n, int *level)
{
	uint64_t sets[8];
	const uint64_t *ptr[8];
	size_t i;

	for (i = 0; i < n; i++) {
		sets[i] = set(loops[i]);
		ptr[i] = &sets[i];
	}
	return cpi_merge_levels(ptr, counts, n, 1, level);
}

static void table_one(void)
{
	/* Figure 6: five back edges to A. {A,B} is taken more than 3x its
	 * four supersets together, {A,B,E} more than 3x {A,B,E,F}, but
	 * {A,B,C} less than 3x {A,B,C,D}. */
	static const char *const loops[] = { "ABC", "ABCD", "ABEF", "AB", "ABE" };
	static const uint64_t counts[] = { 20, 10, 10, 400, 40 };
	int level[5], n = levels(loops, counts, 5, level);

	tap_ok(n == 3, "Figure 6: three loops from five back edges (%d)", n);
	tap_ok(level[0] == 0 && level[1] == 0 && level[2] == 0,
	       "iteration 0 (Table I): {A,B,C}, {A,B,C,D}, {A,B,E,F} are Loop Z");
	tap_ok(level[4] == 1, "iteration 1: {A,B,E} is Loop Y, nested in Z");
	tap_ok(level[3] == 2, "iteration 2: {A,B} is Loop X, nested in Y");
}

static void edge_cases(void)
{
	static const char *const two[] = { "AB", "ABC" };
	static const char *const same[] = { "ABC", "ABC" };
	static const char *const zero[] = { "ABC", "AB" };
	uint64_t c[2];
	int level[2];

	c[0] = 29, c[1] = 10;
	tap_ok(levels(two, c, 2, level) == 1 && level[0] == 0 && level[1] == 0,
	       "a subset taken less than 3x its superset: one loop");
	c[0] = 30;
	tap_ok(levels(two, c, 2, level) == 2 && level[0] == 1 && level[1] == 0,
	       "taken exactly 3x: nested (T = 3 is 'at least')");
	c[0] = 5, c[1] = 500;
	tap_ok(levels(same, c, 2, level) == 1 && level[0] == 0 && level[1] == 0,
	       "two back edges with the same blocks: one loop, whatever their counts");
	c[0] = 0, c[1] = 0;
	tap_ok(levels(zero, c, 2, level) == 1 && level[1] == 0,
	       "a back edge never taken is not a nested loop, though 0 >= 3 x 0");
	tap_ok(levels(two, c, 0, level) == 0, "no loops: no levels");
}

static void top_functions(void)
{
	struct cpi_func funcs[6];
	static const double ns[6] = { 5, 0, 9, 5, 7, 1 };
	struct cpi c;
	uint32_t top[4] = { 0 };
	size_t i;

	memset(&c, 0, sizeof(c));
	memset(funcs, 0, sizeof(funcs));
	for (i = 0; i < 6; i++)
		funcs[i].self_ns = ns[i];
	c.funcs = funcs;
	c.nfuncs = 6;
	tap_ok(cpi_top_functions(&c, top, 3) == 3 && top[0] == 2 && top[1] == 4 && top[2] == 0,
	       "the top 3 by own time, most first; of equal times the first");
	tap_ok(cpi_top_functions(&c, top, 1) == 1 && top[0] == 2, "the top one");
	funcs[2].self_ns = funcs[4].self_ns = 0;
	tap_ok(cpi_top_functions(&c, top, 4) == 3 && top[0] == 0 && top[1] == 3 && top[2] == 5,
	       "functions without time are never top");
	funcs[0].self_ns = funcs[3].self_ns = funcs[5].self_ns = 0;
	tap_ok(cpi_top_functions(&c, top, 4) == 0, "none with time: none");
}

int main(void)
{
	table_one();
	edge_cases();
	top_functions();
	return tap_done();
}
