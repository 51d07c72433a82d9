/*
 * loop_out.c - the loop lines of a tool loop profile
 * (docs/profile-format.md, "Tool loop"): the thresholds, the stats, the
 * loops the threads ran (and the loops they are nested in), and per
 * thread its loops in their calling contexts (`l`) and the loads that
 * re-read in them (`x`, the thread's pairs: the loop's node and the
 * load's).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

#include "spy.h"
#include "loop.h"
#include "core/profile.h"

void loop_thread_nodes(const SpyThread *t, void (*fn)(void *ctx, UInt node), void *ctx)
{
	const LoopRec *r;
	UInt i, n = loop_thread_records(t, &r);

	for (i = 0; i < n; i++)
		fn(ctx, r[i].node);
}

void loop_write_header(struct core_profile *o)
{
	HChar v[64];

	/* Shares with three decimals, as the option gave them. */
	VG_(snprintf)(v, sizeof(v), "%u %u.%03u %u.%03u", loop_a, (UInt)loop_r,
		      (UInt)((loop_r - (UInt)loop_r) * 1000 + 0.5), (UInt)loop_ri,
		      (UInt)((loop_ri - (UInt)loop_ri) * 1000 + 0.5));
	core_profile_kv(o, "thresholds", v);
}

void loop_write_stats(struct core_profile *o)
{
	core_profile_stat(o, "reads", loop_st.reads);
	core_profile_stat(o, "reads_in_loops", loop_st.reads_in_loops);
	core_profile_stat(o, "redundant_reads", loop_st.redundant_reads);
	core_profile_stat(o, "reads_untracked", loop_st.reads_untracked);
	core_profile_stat(o, "loops_untracked", loop_st.loops_untracked);
	core_profile_stat(o, "reads_unattributed", loop_st.reads_unattributed);
	core_profile_stat(o, "exact_parts", loop_exact_parts);
	core_profile_stat(o, "loops", loop_map_count());
	core_profile_stat(o, "modules_unmapped", loop_map_unmapped());
}

void loop_write_defs(struct core_profile *o)
{
	UInt n = loop_map_count(), i;
	Int *module = VG_(malloc)("witchspy.loopout", (n ? n : 1) * sizeof(Int));
	SpyThread *t;

	for (i = 0; i < n; i++)
		module[i] = -1;
	for (t = spy_threads; t; t = t->next) {
		const LoopRec *r;
		UInt k, nr = t->lwpid ? loop_thread_records(t, &r) : 0;

		for (k = 0; k < nr; k++) {
			const SpyNode *node = spy_node(r[k].node);
			const LoopDesc *l;

			if (node->module < 0 || spy_mods[node->module].id < 0)
				continue;
			for (l = r[k].loop; l && module[l->id] < 0; l = l->parent)
				module[l->id] = spy_mods[node->module].id;
		}
	}
	for (i = 0; i < n; i++) {
		const LoopDesc *l = loop_map_loop(i);

		if (module[i] < 0)
			continue;
		core_profile_loop_def(o, l->id, module[i], l->header, l->parent ? (Long)l->parent->id : -1,
				      l->depth, l->first_line, l->last_line,
				      VG_(strcmp)(l->file, "-") ? l->file : NULL);
	}
	VG_(free)(module);
}

UInt loop_thread_lines(const SpyThread *t)
{
	const LoopRec *r;
	UInt i, n = loop_thread_records(t, &r);

	for (i = 0; i < t->pairs.n; i++)
		n += loop_thread_rec(t, t->pairs.v[i].watch) != NULL;
	return n;
}

void loop_write_thread(struct core_profile *o, const SpyThread *t, const UInt *local)
{
	const LoopRec *r;
	UInt i, n = loop_thread_records(t, &r);

	for (i = 0; i < n; i++) {
		uint64_t c[6] = { r[i].invocations, r[i].iterations, r[i].data_iterations,
			       r[i].redundant_iterations, r[i].reads, r[i].redundant_reads };

		core_profile_loop(o, r[i].loop->id, local[r[i].node], c);
	}
	for (i = 0; i < t->pairs.n; i++) {
		const SpyPair *p = &t->pairs.v[i];
		const LoopRec *rec = loop_thread_rec(t, p->watch);

		if (rec)
			core_profile_loop_read(o, rec->loop->id, local[p->watch], local[p->trap],
					       p->count);
	}
}
