/*
 * WITCH §4.1 reservoir replacement and §4.2 proportional attribution,
 * alone and together on a simulated Listing 3; and which piece of a
 * sampled access a watch covers.
 */
#include <string.h>

#include "runtime/cct.h"
#include "runtime/reservoir.h"
#include "runtime/runtime.h"
#include "tap.h"

/* Every sample of a window of M, with N registers and no traps, survives
 * with probability N/M. */
static void survival(unsigned nslots, int m)
{
	enum { TRIALS = 40000 };
	static int survived[64];
	uint64_t rng = 12345;
	int trial, i, worst = 0;
	double expect = (double)nslots / m, maxdev = 0;

	memset(survived, 0, sizeof(survived));
	for (trial = 0; trial < TRIALS; trial++) {
		struct wt_reservoir r;
		int holder[WT_MAX_SLOTS];
		unsigned occupied = 0;

		wt_reservoir_init(&r, nslots);
		for (i = 0; i < m; i++) {
			int s = wt_reservoir_choose(&r, occupied, wt_rand(&rng));

			if (s >= 0) {
				holder[s] = i;
				occupied |= 1u << s;
			}
		}
		for (i = 0; i < (int)nslots; i++)
			survived[holder[i]]++;
	}
	for (i = 0; i < m; i++) {
		double dev = (double)survived[i] / TRIALS - expect;

		if (dev < 0)
			dev = -dev;
		if (dev > maxdev) {
			maxdev = dev;
			worst = i;
		}
	}
	tap_ok(maxdev < 0.015, "N=%u, %d samples: each survives with p=%.3f (worst: sample %d off by %.4f)",
	       nslots, m, expect, worst, maxdev);
}

static void reset_after_trap(void)
{
	struct wt_reservoir r;
	uint64_t rng = 7;
	int i, s = 0;

	wt_reservoir_init(&r, 3);
	for (i = 0; i < 3; i++)
		s = wt_reservoir_choose(&r, (1u << i) - 1, wt_rand(&rng));
	tap_ok(s == 2, "free registers are used first");
	for (i = 0; i < 100; i++)
		wt_reservoir_choose(&r, 7, wt_rand(&rng));
	wt_reservoir_freed(&r, 5);	/* slot 1 trapped */
	tap_ok(wt_reservoir_choose(&r, 5, wt_rand(&rng)) == 1,
	       "after a trap the next sample is watched with probability 1");
	tap_ok(r.k == 3, "the window restarts from the watched samples");
}

/* Figure 2's arithmetic: contexts with samples 3:2:1 but traps 1:2:6
 * still get waste 3:2:1. */
static void proportional(void)
{
	struct wt_cct c;
	uintptr_t pa = 0x100, pb = 0x200, px = 0x300;
	uint32_t a, b, x, k;
	double wa = 0, wb = 0, wx = 0, tot;
	int i;

	wt_cct_init(&c, 1024, 1024);
	a = wt_cct_path(&c, &pa, 1);
	b = wt_cct_path(&c, &pb, 1);
	x = wt_cct_path(&c, &px, 1);
	for (i = 0; i < 30; i++)
		wt_attrib_sampled(&c.nodes[a]);
	for (i = 0; i < 20; i++)
		wt_attrib_sampled(&c.nodes[b]);
	for (i = 0; i < 10; i++)
		wt_attrib_sampled(&c.nodes[x]);
	wt_attrib_armed(&c.nodes[a]);
	wa += wt_attrib_take(&c.nodes[a]) * 4;
	for (i = 0; i < 2; i++) {
		wt_attrib_armed(&c.nodes[b]);
		wb += wt_attrib_take(&c.nodes[b]) * 4;
	}
	for (i = 0; i < 6; i++) {
		wt_attrib_armed(&c.nodes[x]);
		wx += wt_attrib_take(&c.nodes[x]) * 4;
	}
	tot = wa + wb + wx;
	tap_ok(tot == 240, "all 60 samples x 4 bytes are attributed (%g)", tot);
	tap_ok(wa / tot > 0.4999 && wa / tot < 0.5001 && wb / tot > 0.3333 && wb / tot < 0.3334,
	       "shares 50/33/17 %% (%.3f %.3f %.3f)", wa / tot, wb / tot, wx / tot);

	/* Two watchpoints armed from one context share its samples. */
	for (i = 0; i < 10; i++)
		wt_attrib_sampled(&c.nodes[a]);
	wt_attrib_armed(&c.nodes[a]);
	wt_attrib_armed(&c.nodes[a]);
	tap_ok(wt_attrib_take(&c.nodes[a]) == 5, "first of two concurrent watchpoints takes half");
	tap_ok(wt_attrib_take(&c.nodes[a]) == 5, "the second takes the rest");
	k = wt_cct_path(&c, &pa, 1);
	tap_ok(k == a, "the same path is the same node");
	wt_cct_release(&c);
}

/* Figure 2 under SilentCraft: a context whose watches rarely live to trap
 * (the next store comes a whole round later) takes as many samples as one
 * whose watches trap at once, but its last trap came early. Its samples
 * since then are spread over the traps it had when the profile is
 * written, so both end with half. */
static void samples_after_last_trap(void)
{
	struct wt_cct c;
	uintptr_t pl = 0x100, pd = 0x200;
	uint32_t live, dead;
	double wl, wd = 0, rl, rd;
	int i;

	wt_cct_init(&c, 1024, 1024);
	live = wt_cct_path(&c, &pl, 1);
	dead = wt_cct_path(&c, &pd, 1);
	for (i = 0; i < 10; i++)
		wt_attrib_sampled(&c.nodes[live]);
	wt_attrib_armed(&c.nodes[live]);
	wl = wt_attrib_take(&c.nodes[live]) * 4;
	for (i = 0; i < 90; i++)
		wt_attrib_sampled(&c.nodes[live]);
	for (i = 0; i < 100; i++) {
		wt_attrib_sampled(&c.nodes[dead]);
		wt_attrib_armed(&c.nodes[dead]);
		wd += wt_attrib_take(&c.nodes[dead]) * 4;
	}
	rl = wt_attrib_remainder(&c.nodes[live]);
	rd = wt_attrib_remainder(&c.nodes[dead]);
	tap_ok(rl == 10 && rd == 1, "remainder: 100 samples over 10 taken scales by 10, a context "
	       "with none left by 1 (%g, %g)", rl, rd);
	tap_ok(wl * rl == wd * rd, "both contexts end with their 100 samples' worth (%g, %g)",
	       wl * rl, wd * rd);
	tap_ok(wt_attrib_remainder(&c.nodes[0]) == 1, "a context without traps is left as it is");
	wt_cct_release(&c);
}

/*
 * Listing 3, simulated: per outer iteration the i loop stores array[0..n),
 * the k loop stores *p then *q (the same address) n times, the j loop
 * stores array[0..n). Every P-th store is sampled; 3 registers watch with
 * reservoir replacement; a store to a watched address is a dead write.
 * The four pairs <3,11> <11,3> <7,8> <8,7> each deserve 25 %.
 */
enum { L3, L7, L8, L11, NLINES };
static struct wt_cct sim;
static uint32_t line_node[NLINES];
static double dead[NLINES][NLINES];
static struct {
	int on;
	long addr;
	int line;
} reg[3];
static struct wt_reservoir res;
static uint64_t sim_rng = 99;
static long until_sample;

static unsigned occupied(void)
{
	unsigned m = 0;
	int i;

	for (i = 0; i < 3; i++)
		m |= (unsigned)reg[i].on << i;
	return m;
}

static void store(long addr, int line, long period)
{
	int i, s;

	for (i = 0; i < 3; i++) {
		if (!reg[i].on || reg[i].addr != addr)
			continue;
		dead[reg[i].line][line] += wt_attrib_take(&sim.nodes[line_node[reg[i].line]]) * 4;
		reg[i].on = 0;
		wt_reservoir_freed(&res, occupied());
	}
	if (--until_sample > 0)
		return;
	until_sample = period / 2 + (long)(wt_rand(&sim_rng) % (uint64_t)period);
	wt_attrib_sampled(&sim.nodes[line_node[line]]);
	s = wt_reservoir_choose(&res, occupied(), wt_rand(&sim_rng));
	if (s < 0)
		return;
	if (reg[s].on)
		wt_attrib_abandoned(&sim.nodes[line_node[reg[s].line]]);
	reg[s].on = 1;
	reg[s].addr = addr;
	reg[s].line = line;
	wt_attrib_armed(&sim.nodes[line_node[line]]);
}

static void listing3(void)
{
	const long n = 20000, period = 1000, p = -1;
	double tot = 0, worst = 0;
	int iter, i, j;
	long k;

	wt_cct_init(&sim, 1024, 1024);
	for (i = 0; i < NLINES; i++) {
		uintptr_t pc = 0x1000 + (uintptr_t)i;

		line_node[i] = wt_cct_path(&sim, &pc, 1);
	}
	wt_reservoir_init(&res, 3);
	until_sample = period;
	for (iter = 0; iter < 300; iter++) {
		for (k = 0; k < n; k++)
			store(k, L3, period);
		for (k = 0; k < n; k++) {
			store(p, L7, period);
			store(p, L8, period);
		}
		for (k = 0; k < n; k++)
			store(k, L11, period);
	}
	for (i = 0; i < NLINES; i++)
		for (j = 0; j < NLINES; j++)
			tot += dead[i][j];
	for (i = 0; i < NLINES; i++)
		for (j = 0; j < NLINES; j++) {
			int expected = (i == L3 && j == L11) || (i == L11 && j == L3) ||
				       (i == L7 && j == L8) || (i == L8 && j == L7);
			double dev = dead[i][j] / tot - (expected ? 0.25 : 0);

			if (dev < 0)
				dev = -dev;
			if (dev > worst)
				worst = dev;
		}
	tap_ok(worst < 0.03, "Listing 3: four dead pairs at 25 %% each (<3,11> %.3f <11,3> %.3f <7,8> %.3f <8,7> %.3f)",
	       dead[L3][L11] / tot, dead[L11][L3] / tot, dead[L7][L8] / tot, dead[L8][L7] / tot);
	wt_cct_release(&sim);
}

static int piece_ok(uintptr_t ea, unsigned size, uint64_t r)
{
	uintptr_t piece, byte = ea + r % size;
	unsigned len = wt_watch_piece(ea, size, r, &piece);

	return (len == 1 || len == 2 || len == 4 || len == 8) && piece % len == 0 &&
	       piece >= ea && piece + len <= ea + size && byte >= piece && byte < piece + len;
}

/* The watched piece holds the chosen byte, lies in the access and is a
 * piece a debug register can watch; r = 0 is the access's first piece. */
static void watch_pieces(void)
{
	static const unsigned sizes[] = { 1, 2, 4, 8, 10, 16, 32, 64 };
	uintptr_t piece;
	unsigned i, bad = 0;

	tap_ok(wt_watch_piece(0x1000, 32, 0, &piece) == 8 && piece == 0x1000,
	       "32-byte store, byte 0: its first 8 bytes");
	tap_ok(wt_watch_piece(0x1000, 32, 17, &piece) == 8 && piece == 0x1010,
	       "32-byte store, byte 17: its third 8 bytes");
	tap_ok(wt_watch_piece(0x1004, 8, 0, &piece) == 4 && piece == 0x1004 &&
	       wt_watch_piece(0x1004, 8, 5, &piece) == 4 && piece == 0x1008,
	       "8 bytes at 4 mod 8: either aligned half");
	tap_ok(wt_watch_piece(0x1002, 4, 3, &piece) == 2 && piece == 0x1004,
	       "4 bytes at 2 mod 4: the second aligned pair");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (uintptr_t ea = 0x1000; ea < 0x1010; ea++)
			for (uint64_t r = 0; r < 2 * sizes[i]; r++)
				bad += !piece_ok(ea, sizes[i], r);
	tap_ok(bad == 0, "every offset, size and byte: an aligned piece of the access holding the byte (%u bad)", bad);
}

int main(void)
{
	survival(1, 10);
	survival(3, 10);
	survival(3, 50);
	survival(4, 7);
	reset_after_trap();
	proportional();
	samples_after_last_trap();
	listing3();
	watch_pieces();
	return tap_done();
}
