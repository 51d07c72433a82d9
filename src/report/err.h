/*
 * err.h - the report side's one way to fail with a reason: format it into
 * the caller's buffer and return -1.
 */
#ifndef WITCH_REPORT_ERR_H
#define WITCH_REPORT_ERR_H

#include <stddef.h>

int rp_error(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
