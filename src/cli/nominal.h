/*
 * nominal.h - the CPU's nominal frequency, for the CPI witch cpi estimates
 * from time per execution.
 */
#ifndef WITCH_CLI_NOMINAL_H
#define WITCH_CLI_NOMINAL_H

#include <stdint.h>

/* In kHz, from what the system says (cpufreq's base frequency, the "@
 * 2.30GHz" of the model name, cpufreq's maximum, or /proc/cpuinfo's
 * current "cpu MHz", in that order); 0 when it says none. */
uint64_t cpu_nominal_khz(void);

#endif
