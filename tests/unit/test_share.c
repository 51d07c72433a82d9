/*
 * test_share.c - witch record --craft=share's pieces, without running a
 * program under it: the heap block table, the board between two threads
 * (publishing, picking up, the contexts copied, the weights), the
 * verdicts of traps and their records; and the report's side: s lines
 * read, and refused when wrong, merged into pairs and lines, false sharing
 * ranked first.
 */
#include "tap.h"
#include "core/cct.h"
#include "profile/reader.h"
#include "report/report.h"
#include "report/share.h"
#include "runtime/hit.h"
#include "runtime/runtime.h"
#include "runtime/share.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void test_blocks(void)
{
	uintptr_t start = 0, site = 0;
	size_t size = 0;

	tap_ok(!wt_blocks_find(0x10008, &start, &size, &site), "blocks: none known before the table");
	tap_ok(wt_blocks_init() == 0, "blocks: the table");
	wt_blocks_add(0x10000, 16, 0x401234);
	tap_ok(wt_blocks_find(0x10008, &start, &size, &site) && start == 0x10000 && size == 16 &&
	       site == 0x401234, "blocks: an address inside a block finds it and its site");
	tap_ok(wt_blocks_find(0x10000, &start, &size, &site) && start == 0x10000,
	       "blocks: its first byte too");
	tap_ok(!wt_blocks_find(0x10010, &start, &size, &site), "blocks: not the byte past its end");
	wt_blocks_add(0x20000, 1 << 20, 0x405678);
	tap_ok(wt_blocks_find(0x20000 + 700000, &start, &size, &site) && start == 0x20000 &&
	       size == 1 << 20 && site == 0x405678, "blocks: a large block, far from its start");
	wt_blocks_remove(0x10000);
	tap_ok(!wt_blocks_find(0x10008, &start, &size, &site), "blocks: a freed block is forgotten");
	wt_blocks_remove(0x20000);
	tap_ok(!wt_blocks_find(0x20000 + 700000, &start, &size, &site),
	       "blocks: a freed large block too");
	wt_blocks_add(0x30000, 64, 0x1);
	wt_blocks_add(0x30000, 128, 0x2);
	tap_ok(wt_blocks_find(0x30070, &start, &size, &site) && size == 128 && site == 0x2,
	       "blocks: the same start again (realloc in place) takes the newer size and site");
	wt_blocks_remove(0x30000);
}

static struct wt_thread t1, t2;
static long lines[64] __attribute__((aligned(64)));

static void thread_init(struct wt_thread *t)
{
	int i;

	memset(t, 0, sizeof(*t));
	t->tid = (pid_t)syscall(SYS_gettid);
	t->nslots = 3;
	for (i = 0; i < WT_MAX_SLOTS; i++)
		t->slot[i].fd = -1;
	t->probe.reg.fd = -1;
	wt_reservoir_init(&t->reservoir, (unsigned)t->nslots);
	t->rng = 0x12345;
	wt_cct_init(&t->cct, 1024, 16);
	wt_share_thread_init(t);
}

/* The path of node id in t's tree, leaf first. */
static int path(const struct wt_thread *t, uint32_t id, uintptr_t *pcs, int max)
{
	int n = 0;

	for (; id && n < max; id = t->cct.nodes[id].parent)
		pcs[n++] = t->cct.nodes[id].pc;
	return n;
}

static void test_board(void)
{
	const uintptr_t ctx[3] = { 0x401100, 0x401200, 0x401300 };	/* leaf first */
	struct wd_access acc;
	uintptr_t got[8];
	uint32_t node;
	unsigned armed = 0;
	int i, n, same = 1;

	/* Watches may arm on this machine's debug registers: their signal,
	 * were it to come, goes nowhere. */
	wt_sig_trap = SIGRTMAX - 2;
	signal(wt_sig_trap, SIG_IGN);
	thread_init(&t1);
	thread_init(&t2);
	memset(&acc, 0, sizeof(acc));
	acc.kind = WD_STORE;
	acc.size = 8;
	acc.base = REG_RAX;
	acc.index = WD_REG_NONE;
	node = wt_cct_path(&t1.cct, ctx, 3);
	for (i = 0; i < 5; i++)
		wt_share_publish(&t1, &acc, (uintptr_t)&lines[8 * i + 1], 0xff,
				 (uintptr_t)&lines[8 * i + 1], node, NULL);
	tap_ok(t1.st.shared_samples == 5, "board: five stores published (%llu)",
	       (unsigned long long)t1.st.shared_samples);
	acc.base = REG_RSP;
	wt_share_publish(&t1, &acc, (uintptr_t)&lines[60], 0xff, (uintptr_t)&lines[60], node, NULL);
	tap_ok(t1.st.private_samples == 1 && t1.st.shared_samples == 5,
	       "board: a store addressed from the stack pointer is the thread's own");

	wt_share_expire(&t1);
	wt_share_pickup(&t1);
	tap_ok(t1.st.share_candidates == 0, "board: a thread does not watch its own stores");
	wt_share_expire(&t2);
	wt_share_pickup(&t2);
	tap_ok(t2.st.share_candidates == 5, "board: the other thread finds the five (%llu)",
	       (unsigned long long)t2.st.share_candidates);
	tap_ok(t2.st.share_watches + t2.st.arm_failed == 3,
	       "board: and the reservoir gives three of them its three registers");
	for (i = 0; i < t2.nslots; i++) {
		const struct wt_slot *s = &t2.slot[i];
		uintptr_t line;

		if (s->state != WT_SLOT_WATCH)
			continue;
		armed++;
		line = s->ea;
		same &= line % WT_LINE == 0 && line >= (uintptr_t)lines &&
			line < (uintptr_t)&lines[40] && s->own == 0xff00 && s->addr >= line &&
			s->addr < line + WT_LINE && s->addr % 8 == 0 && s->len == 8 &&
			s->weight > 8.0 * 5 / 3 - 1e-9 && s->weight < 8.0 * 5 / 3 + 1e-9;
		n = path(&t2, s->watch_node, got, 8);
		same &= n == 3 && got[0] == ctx[0] && got[1] == ctx[1] && got[2] == ctx[2];
	}
	if (armed)
		tap_ok(same, "board: each watch is a word of a store's line, weighs 8 x 5 / 3, in "
		       "the store's context copied into the watching thread's tree");
	else
		tap_ok(1, "board: no debug registers here to arm (skipped)");
	wt_share_pickup(&t2);
	tap_ok(t2.st.share_candidates == 5, "board: stores are watched once");
	wt_share_expire(&t2);
	tap_ok(t2.st.share_expired == armed, "board: the next sample ends the watches untripped");
	wt_slots_close(&t2);
}

/* A watch of t2's on the line of a store of bytes 0-7, word `word`. */
static struct wt_slot *watching(uintptr_t line, unsigned word, uint32_t watch_node)
{
	struct wt_slot *s = &t2.slot[0];

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->state = WT_SLOT_WATCH;
	s->ea = line;
	s->own = 0xff;
	s->addr = line + 8 * word;
	s->len = 8;
	s->acc.size = WT_LINE;
	s->watch_node = watch_node;
	s->weight = 8;
	return s;
}

static const struct wt_share_rec *find_rec(uint8_t kind, uint8_t toff)
{
	uint32_t i;

	for (i = 0; i < t2.share->n; i++)
		if (t2.share->v[i].kind == kind && t2.share->v[i].toff == toff)
			return &t2.share->v[i];
	return NULL;
}

static void test_verdicts(void)
{
	uintptr_t line = 0x7f0000001000, pw = 0x401000, pt = 0x402000, pt2 = 0x402010;
	uint32_t w = wt_cct_path(&t2.cct, &pw, 1), tr = wt_cct_path(&t2.cct, &pt, 1);
	const struct wt_share_rec *r;
	struct wt_hit h;
	uintptr_t site;

	memset(&h, 0, sizeof(h));
	h.kind = WD_STORE;
	h.bytes = 0xff00;	/* bytes 8-15: the next counter */
	wt_share_judge(&t2, watching(line, 1, w), &h, tr);
	wt_share_judge(&t2, watching(line, 1, w), &h, tr);
	r = find_rec(WT_FALSE_SHARING, 8);
	tap_ok(r && r->count == 2 && r->weight == 16 && r->woff == 0 && r->wlen == 8 &&
	       r->tlen == 8 && r->line == line && r->watch == w && r->trap == tr,
	       "verdict: other bytes of the line are false sharing, one record for both traps");
	h.kind = WD_LOAD;
	h.bytes = 0xf0;		/* bytes 4-7 of the store's 0-7 */
	wt_share_judge(&t2, watching(line, 0, w), &h, tr);
	r = find_rec(WT_TRUE_SHARING, 4);
	tap_ok(r && r->count == 1 && r->tlen == 4, "verdict: a load of the store's bytes is true sharing");
	h.bytes = 0;		/* an access whose bytes are not known: the word watched */
	wt_share_judge(&t2, watching(line, 3, w), &h, wt_cct_path(&t2.cct, &pt2, 1));
	r = find_rec(WT_FALSE_SHARING, 24);
	tap_ok(r && r->tlen == 8, "verdict: unknown bytes are the watched word's");
	tap_ok(t2.st.traps == 4, "verdict: every trap counted");

	wt_blocks_add(line + 0x40, 32, 0x4011aa);
	h.bytes = 0xff00;
	wt_share_judge(&t2, watching(line + 0x40, 1, w), &h, tr);
	r = NULL;
	for (uint32_t i = 0; i < t2.share->n; i++)
		if (t2.share->v[i].line == line + 0x40)
			r = &t2.share->v[i];
	site = r && r->site ? t2.cct.nodes[r->site].pc : 0;
	tap_ok(r && r->block == line + 0x40 && r->block_size == 32 && site == 0x4011a9 &&
	       t2.cct.nodes[r->site].parent == 0,
	       "verdict: a line in a heap block names the block and the call that allocated it");
}

/* --- the report's side --------------------------------------------------- */

static const char share_head[] =
	"WITCH-PROFILE 1\n"
	"tool share\n"
	"source timer\n"
	"rate_hz 200\n"
	"period 0\n"
	"registers 4\n"
	"pid 77\n"
	"start_ns 1\n"
	"end_ns 2\n"
	"status complete\n"
	"module 0 - 0 /bin/app\n"
	"stat cpu_ns 2000000000\n";

/* Parse head + body + end; NULL with the message in err. */
static struct wp_profile *parse(const char *head, const char *body, char *err, size_t cap)
{
	static char text[8192];
	struct wp_profile *p = NULL;
	size_t lines = 0;
	char *c;

	snprintf(text, sizeof(text), "%s%s", head, body);
	for (c = text; *c; c++)
		lines += *c == '\n';
	snprintf(text + strlen(text), sizeof(text) - strlen(text), "end %zu\n", lines);
	if (wp_parse("share.witch", text, strlen(text), &p, err, cap))
		return NULL;
	return p;
}

static void refused(const char *head, const char *body, const char *want, const char *what)
{
	char err[512] = "";
	struct wp_profile *p = parse(head, body, err, sizeof(err));

	tap_ok(!p && strstr(err, want), "reader refuses %s (%s)", what, err);
	wp_free(p);
}

#define NODES "n 0 -1 -1 0 0\nn 1 0 0 1000 0\nn 2 1 0 1800 3\nn 3 1 0 17f8 0\n"

static void test_reader(void)
{
	static const char dead_head[] =
		"WITCH-PROFILE 1\ntool dead\nsource timer\nrate_hz 200\nperiod 0\nregisters 4\n"
		"pid 1\nstart_ns 1\nend_ns 2\nstatus complete\n";
	char err[512] = "";
	struct wp_profile *p = parse(share_head,
				     "thread 5 5 2\n" NODES "n 4 0 0 1234 0\n"
				     "s 2 2 f 3 24.000 0 c280 0 8 8 8 0 0 0\n"
				     "s 2 3 t 1 8.000 -1 7f0000001000 0 8 4 4 7f0000001000 16 4\n",
				     err, sizeof(err));
	const struct wp_share *s;

	tap_ok(p && p->nthreads == 1 && p->threads[0].nshares == 2, "reader: s lines (%s)", err);
	if (p) {
		s = &p->threads[0].shares[0];
		tap_ok(s->watch == 2 && s->trap == 2 && s->kind == 'f' && s->count == 3 &&
		       s->weight_milli == 24000 && s->module == 0 && s->line == 0xc280 &&
		       s->woff == 0 && s->wlen == 8 && s->toff == 8 && s->tlen == 8 && !s->block,
		       "reader: a false sharing record in a module");
		s = &p->threads[0].shares[1];
		tap_ok(s->kind == 't' && s->module == -1 && s->line == 0x7f0000001000 &&
		       s->block == 0x7f0000001000 && s->block_size == 16 && s->site == 4,
		       "reader: a true sharing record in a heap block");
	}
	wp_free(p);
	refused(share_head, "thread 5 4 1\n" NODES "s 2 2 x 1 8.000 0 c280 0 8 8 8 0 0 0\n",
		"bad kind", "a kind neither f nor t");
	refused(share_head, "thread 5 4 1\n" NODES "s 2 2 t 1 8.000 0 c280 0 8 8 8 0 0 0\n",
		"do not overlap", "true sharing of bytes apart");
	refused(share_head, "thread 5 4 1\n" NODES "s 2 2 f 1 8.000 0 c288 0 8 8 8 0 0 0\n",
		"not 64-byte aligned", "a line not aligned");
	refused(share_head, "thread 5 4 1\n" NODES "s 2 2 f 1 8.000 0 c280 60 8 8 8 0 0 0\n",
		"bytes 60 to 68", "bytes past the line's end");
	refused(share_head, "thread 5 4 1\n" NODES "s 2 2 f 0 8.000 0 c280 0 8 8 8 0 0 0\n",
		"trap count 0", "no traps");
	refused(share_head, "thread 5 4 1\n" NODES "s 2 9 f 1 8.000 0 c280 0 8 8 8 0 0 0\n",
		"refers to node 9", "a node that is not there");
	refused(share_head, "thread 5 4 1\n" NODES "s 2 2 f 1 8.000 0 c280 0 8 8 8 0 0 3\n",
		"only a block has an allocation node", "a site without a block");
	refused(share_head, "thread 5 4 2\n" NODES "s 2 2 f 1 8.000 0 c280 0 8 8 8 0 0 0\n"
		"thread 6 1 0\nn 0 -1 -1 0 0\n", "declares 2 records but 1", "fewer s lines than declared");
	refused(share_head, "thread 5 4 1\n" NODES "p 2 2 8.000 0.000 1\n", "a p line in a profile of tool share",
		"a p line");
	refused("WITCH-PROFILE 1\ntool share\nsource timer\nrate_hz 200\nperiod 0\nregisters 4\n"
		"pid 1\nstart_ns 1\nend_ns 2\nstatus complete\nmodule 0 - 0 /bin/app\n",
		"thread 5 4 0\n" NODES, "no stat cpu_ns", "a share profile without cpu_ns");
	refused(dead_head, "module 0 - 0 /bin/app\nthread 5 4 1\n" NODES
		"s 2 2 f 1 8.000 0 c280 0 8 8 8 0 0 0\n", "an s line in a profile of tool dead",
		"an s line in a dead profile");
}

static int merge(struct wr_report *r, const char *body)
{
	char err[512] = "";
	struct wp_profile *p = parse(share_head, body, err, sizeof(err));
	int ret = p ? wr_merge(r, p, err, sizeof(err)) : -1;

	if (ret)
		tap_diag("%s", err);
	wp_free(p);
	return ret;
}

static void test_merge(void)
{
	struct wr_report *r = wr_report_new();
	const struct wr_shares *sh;
	const struct wr_share_line *l;
	const struct wr_pair *first, *second;

	/* Each thread stored at its own counter and watched the other's:
	 * one line, its offsets in order. A true pair weighs more. */
	tap_ok(r && !merge(r, "thread 5 4 2\n" NODES
			   "s 2 2 f 3 24.000 0 c280 0 8 8 8 0 0 0\n"
			   "s 3 3 t 9 72.000 0 c2c0 0 8 0 8 0 0 0\n"
			   "thread 6 4 1\n" NODES
			   "s 2 2 f 2 16.000 0 c280 8 8 0 8 0 0 0\n") &&
	       !wr_report_finish(r), "merge: two threads' records");
	if (!r)
		return;
	sh = r->shares;
	tap_ok(sh && r->npairs == 2 && sh->nlines == 2, "merge: one pair and line per kind (%zu, %zu)",
	       r->npairs, sh ? sh->nlines : 0);
	if (!sh || r->nranked != 2) {
		wr_report_free(r);
		return;
	}
	first = &r->pairs[r->ranked[0]];
	second = &r->pairs[r->ranked[1]];
	tap_ok(first->kind == 'f' && first->waste_milli == 40000 && first->count == 5 &&
	       second->kind == 't', "merge: false sharing ranks first, though true sharing weighs more");
	l = &sh->lines[sh->by_pair[sh->pair_lines[r->ranked[0]]]];
	tap_ok(sh->pair_lines[r->ranked[0] + 1] - sh->pair_lines[r->ranked[0]] == 1 && l->woff == 0 &&
	       l->toff == 8 && l->weight_milli == 40000 && l->count == 5,
	       "merge: both directions of one context are one line, offsets in order");
	tap_ok(sh->false_milli == 40000 && sh->true_milli == 72000 && sh->most_threads == 2,
	       "merge: totals by kind, and threads per process");
	tap_ok(wr_share_rate(r, sh->false_milli) > 19.99 && wr_share_rate(r, sh->false_milli) < 20.01,
	       "merge: 40 over 2 CPU-seconds is 20 per CPU-second");
	wr_report_free(r);
}

int main(void)
{
	test_blocks();
	test_board();
	test_verdicts();
	test_reader();
	test_merge();
	return tap_done();
}
