/*
 * slow.h - code that takes time without touching memory, for test programs
 * that want timer samples to land before a given access: six dependent
 * divisions, by a divisor the caller reads at run time so the compiler
 * cannot turn them into multiplications.
 */
#ifndef WITCH_TEST_SLOW_H
#define WITCH_TEST_SLOW_H

#include <stdint.h>

static inline uint64_t slow(uint64_t x, uint64_t d)
{
	x = x / d + 0x9e3779b97f4a7c15ull;
	x = x / d + 0x9e3779b97f4a7c15ull;
	x = x / d + 0x9e3779b97f4a7c15ull;
	x = x / d + 0x9e3779b97f4a7c15ull;
	x = x / d + 0x9e3779b97f4a7c15ull;
	return x / d + 0x9e3779b97f4a7c15ull;
}

#endif
