/*
 * causal_profile.h - causal profiles (docs/causal.md §2) read strictly and
 * merged: every run's records are kept in file order (witch report
 * --format=coz re-emits them), names are interned across runs.
 */
#ifndef WITCH_CAUSAL_PROFILE_H
#define WITCH_CAUSAL_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "report/causal_strtab.h"

/* A progress point's observation during one experiment. */
struct rc_obs {
	uint32_t point;		/* into names */
	int latency;		/* 0: throughput-point, 1: latency-point */
	uint64_t delta;		/* throughput: visits during the experiment */
	uint64_t arrivals, departures;
	int64_t difference;	/* latency: requests in flight at the experiment's end */
};

struct rc_exp {
	uint32_t run;
	uint32_t line;		/* into names: "file.c:17" */
	uint32_t speedup;	/* per mille, 0..1000 */
	uint64_t duration;	/* ns, delays excluded */
	uint64_t selected_samples;
	uint64_t delays, delay_ns;
	uint64_t start;		/* CLOCK_MONOTONIC ns it began (0: not recorded);
				   only diagnosis reads it, the analysis does not */
	size_t obs, nobs;	/* into obs */
};

struct rc_sample {
	uint32_t line;		/* into names */
	uint64_t count;
};

struct rc_decl {
	uint32_t name;		/* into names */
	uint32_t kind;		/* into names: "throughput", "begin", ... */
};

struct rc_run {
	char *file;
	uint64_t pid;
	char *command;
	uint64_t startup;	/* ns since the epoch; 0 when not recorded */
	int has_runtime;
	uint64_t runtime;	/* ns */
	uint64_t wall;		/* ns; 0 when not recorded */
	uint64_t budget_held;	/* ns the delay budget held experiments back */
	int has_end, complete;
	char *status;		/* "exit:0", "signal:11"; NULL without end */
	size_t exp, nexp;	/* into exps */
	size_t smp, nsmp;	/* into samples */
	size_t decl, ndecl;	/* into decls */
};

struct rc_profile {
	struct rc_strtab names;
	struct rc_run *runs;
	size_t nruns, cap_runs;
	struct rc_exp *exps;
	size_t nexps, cap_exps;
	struct rc_obs *obs;
	size_t nobs, cap_obs;
	struct rc_sample *samples;
	size_t nsamples, cap_samples;
	struct rc_sample *callers;	/* `callers` records: samples of code a line called */
	size_t ncallers, cap_callers;
	struct rc_decl *decls;
	size_t ndecls, cap_decls;
	uint32_t *function;	/* per names id: function name id, UINT32_MAX unknown */
	size_t cap_function;
	size_t ntmp;		/* unfinished causal.PID.tmp files seen in directories */
	int one_rank;		/* set before rc_load: only rank's profiles are read */
	uint64_t rank;
};

/*
 * Parse one profile's text and merge it. file names the profile in
 * messages. -1 with "FILE:LINE: reason" in err.
 */
int rc_read_text(struct rc_profile *p, const char *text, size_t len, const char *file,
		 char *err, size_t errlen);

/* Read a file (rc_read_text) or every causal.PID of a directory (with
 * one_rank, only that rank's: causal.hHOST.rRANK.PID). The functions of
 * the lines come from .causal-lines beside the profiles. */
int rc_load(struct rc_profile *p, char *const *paths, int npaths, char *err, size_t errlen);

/* Parse a line table's `line` records for function names (lenient: it is
 * only decoration). */
void rc_read_functions(struct rc_profile *p, const char *text, size_t len);

/* Whether a directory entry name is a causal profile: causal.PID or
 * causal.PID.N (the Nth image exec put in that process). */
int rc_is_profile_name(const char *name);

/* 1 when path is a causal profile or a directory holding one, 0 when not. */
int rc_path_is_causal(const char *path);

/* 1 when path is a directory holding witch record profiles (*.witch). */
int rc_dir_has_witch_profiles(const char *path);

/* The function holding a line (names id), or NULL when unknown. */
const char *rc_function(const struct rc_profile *p, uint32_t loc);

void rc_profile_free(struct rc_profile *p);

#endif
