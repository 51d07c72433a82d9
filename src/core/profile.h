/*
 * profile.h - the lines of a profile (docs/profile-format.md): the one
 * writer of `witch record`'s profiles (src/runtime/profile_out.c) and
 * `witch spy`'s (src/spy/profile.c). Each tool decides what goes in its
 * profile; how a line is spelled is decided here. Freestanding, like
 * fmt.h, under which it writes.
 */
#ifndef WITCH_CORE_PROFILE_H
#define WITCH_CORE_PROFILE_H

#include <stdint.h>

#include "core/fmt.h"
#include "core/job.h"

struct core_profile {
	struct core_fmt out;	/* with a sink: the file */
	uint64_t lines;		/* written so far, for the `end` line */
};

/* Header lines "KEY VALUE". */
void core_profile_kv(struct core_profile *p, const char *key, const char *value);
void core_profile_kv_u64(struct core_profile *p, const char *key, uint64_t value);
/* The host (when known), and a launcher's rank and world size (when it
 * gave them): the lines host, rank and world_size. */
void core_profile_job(struct core_profile *p, const struct core_job *j);
void core_profile_stat(struct core_profile *p, const char *name, uint64_t value);
void core_profile_arg(struct core_profile *p, uint64_t i, const char *arg);
/* build_id "" when the object has none. */
void core_profile_module(struct core_profile *p, int64_t id, const char *build_id, uint64_t bias,
			 const char *path);
void core_profile_thread(struct core_profile *p, uint64_t tid, uint64_t nnodes, uint64_t npairs);
/* The root is node 0, parent -1, module -1 (offset 0); a node in no
 * module has module -1 and its address as offset. */
void core_profile_node(struct core_profile *p, uint64_t id, int64_t parent, int64_t module,
		       uint64_t offset, uint64_t mu);
/* The same with the CPU nanoseconds its samples stood for (tool time). */
void core_profile_node_ns(struct core_profile *p, uint64_t id, int64_t parent, int64_t module,
			  uint64_t offset, uint64_t mu, uint64_t ns);
/* Tool count: an instruction and its executions; a control-flow edge of
 * kind 'j', 'c', 'r' or 'f' and how often it was taken; a call
 * instruction and the instructions executed below it. A module of -1
 * has the raw address as its offset. */
void core_profile_insn(struct core_profile *p, int64_t module, uint64_t offset, uint64_t len,
		       uint64_t count);
void core_profile_edge(struct core_profile *p, int64_t src_module, uint64_t src,
		       int64_t dst_module, uint64_t dst, char kind, uint64_t count);
void core_profile_call(struct core_profile *p, int64_t module, uint64_t offset, uint64_t below);
/* Metrics in thousandths (core_milli); approx only where the tool judges
 * approximate equality (with_approx). */
void core_profile_pair(struct core_profile *p, uint64_t watch, uint64_t trap, uint64_t waste,
		       uint64_t use, uint64_t count, int with_approx, uint64_t approx);
/* An `r` line of witch spy --tool=rvn: again was redundant with first
 * count times; kind 'c' (computation), 'l' (load) or 's' (store). */
void core_profile_rvn_pair(struct core_profile *p, uint64_t first, uint64_t again, char kind,
			   uint64_t count);
/* An `s` line of witch record --craft=share: a store (context watch)
 * and another thread's access (trap) to one cache line, count traps
 * weighing weight thousandths; the line in module (-1: line is the
 * address); the two accesses' bytes in it; the heap block holding the
 * store (0 when none known), its size, and the node of the call that
 * allocated it (0: none). */
struct core_share_line {
	uint64_t watch, trap;
	char kind;		/* 'f' false sharing, 't' true sharing */
	uint64_t count, weight;
	int64_t module;
	uint64_t line;
	unsigned woff, wlen, toff, tlen;
	uint64_t block, block_size, site;
};
void core_profile_share(struct core_profile *p, const struct core_share_line *s);
/* witch spy --tool=loop: a loop of the map (file unescaped, NULL or ""
 * unknown); a loop in one context (node) with its invocations,
 * iterations, data-intensive and redundant iterations, reads and
 * redundant reads; a load's redundant reads in it. */
void core_profile_loop_def(struct core_profile *p, uint64_t id, int64_t module, uint64_t header,
			   int64_t parent, uint64_t depth, int64_t first_line, int64_t last_line,
			   const char *file);
void core_profile_loop(struct core_profile *p, uint64_t id, uint64_t node, const uint64_t counts[6]);
void core_profile_loop_read(struct core_profile *p, uint64_t id, uint64_t node, uint64_t load,
			    uint64_t count);
/* The `end` line, then flush. 0, or -1 when anything failed to go out. */
int core_profile_end(struct core_profile *p);

#endif
