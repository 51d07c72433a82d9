/*
 * number.h - whole numbers given on the command line.
 */
#ifndef WITCH_CLI_NUMBER_H
#define WITCH_CLI_NUMBER_H

/* Decimal digits only (no sign, no spaces), in [min, max]: 0 and *out,
 * else -1. */
int cli_long(const char *s, long min, long max, long *out);

#endif
