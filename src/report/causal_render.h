/*
 * causal_render.h - a causal analysis as text (with a small plot per
 * line), as JSON, or re-emitted in coz's own profile format.
 */
#ifndef WITCH_CAUSAL_RENDER_H
#define WITCH_CAUSAL_RENDER_H

#include <stddef.h>
#include <stdio.h>

struct rc_profile;
struct rc_analysis;

/* Warnings about thin or doubtful data, one line each, "witch report:
 * warning: " first; also listed in the JSON. */
void rc_render_warnings(FILE *out, const struct rc_profile *p, const struct rc_analysis *a);

/* At most top curves (0: all). -1 on a write error. */
int rc_render_text(FILE *out, const struct rc_profile *p, const struct rc_analysis *a, size_t top);
int rc_render_json(FILE *out, const struct rc_profile *p, const struct rc_analysis *a, size_t top);

/* coz's profile.coz records: startup, experiment, throughput-point,
 * latency-point, samples, runtime, each run in its file order. */
int rc_render_coz(FILE *out, const struct rc_profile *p);

#endif
