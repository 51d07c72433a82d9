/*
 * profile.c - the lines of a profile (profile.h). Fields are separated by
 * one space and every line counts towards the `end` line's total.
 */
#include "core/profile.h"

static void sp(struct core_profile *p)
{
	core_fmt_bytes(&p->out, " ", 1);
}

static void endl(struct core_profile *p)
{
	core_fmt_bytes(&p->out, "\n", 1);
	p->lines++;
}

void core_profile_kv(struct core_profile *p, const char *key, const char *value)
{
	core_fmt_str(&p->out, key);
	sp(p);
	core_fmt_str(&p->out, value);
	endl(p);
}

void core_profile_kv_u64(struct core_profile *p, const char *key, uint64_t value)
{
	core_fmt_str(&p->out, key);
	sp(p);
	core_fmt_u64(&p->out, value);
	endl(p);
}

void core_profile_job(struct core_profile *p, const struct core_job *j)
{
	if (j->host[0]) {
		core_fmt_str(&p->out, "host ");
		core_fmt_esc(&p->out, j->host);
		endl(p);
	}
	if (j->rank < 0)
		return;
	core_profile_kv_u64(p, "rank", (uint64_t)j->rank);
	if (j->size)
		core_profile_kv_u64(p, "world_size", j->size);
}

void core_profile_stat(struct core_profile *p, const char *name, uint64_t value)
{
	core_fmt_str(&p->out, "stat ");
	core_profile_kv_u64(p, name, value);
}

void core_profile_arg(struct core_profile *p, uint64_t i, const char *arg)
{
	core_fmt_str(&p->out, "arg ");
	core_fmt_u64(&p->out, i);
	sp(p);
	core_fmt_esc(&p->out, arg);
	endl(p);
}

void core_profile_module(struct core_profile *p, int64_t id, const char *build_id, uint64_t bias,
			 const char *path)
{
	core_fmt_str(&p->out, "module ");
	core_fmt_i64(&p->out, id);
	sp(p);
	core_fmt_str(&p->out, build_id[0] ? build_id : "-");
	sp(p);
	core_fmt_hex(&p->out, bias);
	sp(p);
	core_fmt_esc(&p->out, path);
	endl(p);
}

void core_profile_thread(struct core_profile *p, uint64_t tid, uint64_t nnodes, uint64_t npairs)
{
	core_fmt_str(&p->out, "thread ");
	core_fmt_u64(&p->out, tid);
	sp(p);
	core_fmt_u64(&p->out, nnodes);
	sp(p);
	core_fmt_u64(&p->out, npairs);
	endl(p);
}

static void node(struct core_profile *p, uint64_t id, int64_t parent, int64_t module,
		 uint64_t offset, uint64_t mu)
{
	core_fmt_str(&p->out, "n ");
	core_fmt_u64(&p->out, id);
	sp(p);
	core_fmt_i64(&p->out, parent);
	sp(p);
	core_fmt_i64(&p->out, module);
	sp(p);
	core_fmt_hex(&p->out, offset);
	sp(p);
	core_fmt_u64(&p->out, mu);
}

void core_profile_node(struct core_profile *p, uint64_t id, int64_t parent, int64_t module,
		       uint64_t offset, uint64_t mu)
{
	node(p, id, parent, module, offset, mu);
	endl(p);
}

void core_profile_node_ns(struct core_profile *p, uint64_t id, int64_t parent, int64_t module,
			  uint64_t offset, uint64_t mu, uint64_t ns)
{
	node(p, id, parent, module, offset, mu);
	sp(p);
	core_fmt_u64(&p->out, ns);
	endl(p);
}

/* "KEY MODULE OFFSET" of the count tool's lines. */
static void at(struct core_profile *p, const char *key, int64_t module, uint64_t offset)
{
	core_fmt_str(&p->out, key);
	sp(p);
	core_fmt_i64(&p->out, module);
	sp(p);
	core_fmt_hex(&p->out, offset);
}

void core_profile_insn(struct core_profile *p, int64_t module, uint64_t offset, uint64_t len,
		       uint64_t count)
{
	at(p, "i", module, offset);
	sp(p);
	core_fmt_u64(&p->out, len);
	sp(p);
	core_fmt_u64(&p->out, count);
	endl(p);
}

void core_profile_edge(struct core_profile *p, int64_t src_module, uint64_t src,
		       int64_t dst_module, uint64_t dst, char kind, uint64_t count)
{
	at(p, "e", src_module, src);
	sp(p);
	core_fmt_i64(&p->out, dst_module);
	sp(p);
	core_fmt_hex(&p->out, dst);
	sp(p);
	core_fmt_bytes(&p->out, &kind, 1);
	sp(p);
	core_fmt_u64(&p->out, count);
	endl(p);
}

void core_profile_call(struct core_profile *p, int64_t module, uint64_t offset, uint64_t below)
{
	at(p, "c", module, offset);
	sp(p);
	core_fmt_u64(&p->out, below);
	endl(p);
}

void core_profile_pair(struct core_profile *p, uint64_t watch, uint64_t trap, uint64_t waste,
		       uint64_t use, uint64_t count, int with_approx, uint64_t approx)
{
	core_fmt_str(&p->out, "p ");
	core_fmt_u64(&p->out, watch);
	sp(p);
	core_fmt_u64(&p->out, trap);
	sp(p);
	core_fmt_milli(&p->out, waste);
	sp(p);
	core_fmt_milli(&p->out, use);
	sp(p);
	core_fmt_u64(&p->out, count);
	if (with_approx) {
		sp(p);
		core_fmt_milli(&p->out, approx);
	}
	endl(p);
}

void core_profile_rvn_pair(struct core_profile *p, uint64_t first, uint64_t again, char kind,
			   uint64_t count)
{
	char k[3] = { kind, ' ', 0 };

	core_fmt_str(&p->out, "r ");
	core_fmt_u64(&p->out, first);
	sp(p);
	core_fmt_u64(&p->out, again);
	sp(p);
	core_fmt_str(&p->out, k);
	core_fmt_u64(&p->out, count);
	endl(p);
}

void core_profile_share(struct core_profile *p, const struct core_share_line *s)
{
	const uint64_t tail[] = { s->woff, s->wlen, s->toff, s->tlen };
	size_t i;

	core_fmt_str(&p->out, "s ");
	core_fmt_u64(&p->out, s->watch);
	sp(p);
	core_fmt_u64(&p->out, s->trap);
	sp(p);
	core_fmt_bytes(&p->out, &s->kind, 1);
	sp(p);
	core_fmt_u64(&p->out, s->count);
	sp(p);
	core_fmt_milli(&p->out, s->weight);
	sp(p);
	core_fmt_i64(&p->out, s->module);
	sp(p);
	core_fmt_hex(&p->out, s->line);
	for (i = 0; i < sizeof(tail) / sizeof(tail[0]); i++) {
		sp(p);
		core_fmt_u64(&p->out, tail[i]);
	}
	sp(p);
	core_fmt_hex(&p->out, s->block);
	sp(p);
	core_fmt_u64(&p->out, s->block_size);
	sp(p);
	core_fmt_u64(&p->out, s->site);
	endl(p);
}

void core_profile_loop_def(struct core_profile *p, uint64_t id, int64_t module, uint64_t header,
			   int64_t parent, uint64_t depth, int64_t first_line, int64_t last_line,
			   const char *file)
{
	core_fmt_str(&p->out, "loop ");
	core_fmt_u64(&p->out, id);
	sp(p);
	core_fmt_i64(&p->out, module);
	sp(p);
	core_fmt_hex(&p->out, header);
	sp(p);
	core_fmt_i64(&p->out, parent);
	sp(p);
	core_fmt_u64(&p->out, depth);
	sp(p);
	core_fmt_i64(&p->out, first_line);
	sp(p);
	core_fmt_i64(&p->out, last_line);
	sp(p);
	if (file && *file)
		core_fmt_esc(&p->out, file);
	else
		core_fmt_str(&p->out, "-");
	endl(p);
}

void core_profile_loop(struct core_profile *p, uint64_t id, uint64_t node, const uint64_t counts[6])
{
	int i;

	core_fmt_str(&p->out, "l ");
	core_fmt_u64(&p->out, id);
	sp(p);
	core_fmt_u64(&p->out, node);
	for (i = 0; i < 6; i++) {
		sp(p);
		core_fmt_u64(&p->out, counts[i]);
	}
	endl(p);
}

void core_profile_loop_read(struct core_profile *p, uint64_t id, uint64_t node, uint64_t load,
			    uint64_t count)
{
	core_fmt_str(&p->out, "x ");
	core_fmt_u64(&p->out, id);
	sp(p);
	core_fmt_u64(&p->out, node);
	sp(p);
	core_fmt_u64(&p->out, load);
	sp(p);
	core_fmt_u64(&p->out, count);
	endl(p);
}

int core_profile_end(struct core_profile *p)
{
	uint64_t lines = p->lines;

	core_fmt_str(&p->out, "end ");
	core_fmt_u64(&p->out, lines);
	endl(p);
	return core_fmt_flush(&p->out);
}
