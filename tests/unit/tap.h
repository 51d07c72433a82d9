/*
 * tap.h - the smallest TAP producer: each unit test is one C program whose
 * output `prove` reads. Include once per test program.
 */
#ifndef WITCH_TAP_H
#define WITCH_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

static void tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
}

#define tap_diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

/* Print the plan last ("1..N"), which TAP allows; exit status says pass/fail. */
static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif
