/*
 * compare.js - the page of witch compare (compare.c): the sampled profile
 * and the reference side by side: their headline figures, the reference's
 * top pairs with both sides' shares, each side's own top pairs, and the
 * watched sites with each side's weight and verdict there.
 */
'use strict';
witch.draw((d, app) => {
	const {h, add, pct, count, fixed, signed, section, card, table, bar} = witch;
	const r = d.report, a = d.sampled_side, b = d.reference_side;
	const max = Math.max(...r.pairs.map(p => Math.max(p.reference_share, p.sampled_share)), 0.01);

	add(app, h('h1', null, `witch compare: ${r.kind}`),
		h('p', {class: 'meta'}, `sampled: ${a.method} (${r.sampled.tool}); reference: ${b.method} (${r.reference.tool})`),
		h('div', {class: 'side'},
			h('div', null, h('h3', null, `sampled: ${a.method}`), h('div', {class: 'cards'},
				card(pct(r.sampled.redundancy), 'redundancy (WITCH Eq. 1)'), card(count(r.sampled.pairs), 'pairs of sites'))),
			h('div', null, h('h3', null, `reference: ${b.method}`), h('div', {class: 'cards'},
				card(pct(r.reference.redundancy), 'redundancy (WITCH Eq. 1)'), card(count(r.reference.pairs), 'pairs of sites')))),
		h('p', null, `difference: ${signed(r.difference_points, 1)} points. Reference pairs with at least 1% of waste (top ${r.top}) ` +
			`found by the sampled run: ${r.found} of ${r.top}; rank correlation ${r.spearman === null ? 'unknown (too few pairs)' : fixed(r.spearman, 2)}.`),
		r.reweighted_redundancy === null ? null
			: h('p', null, `The sampled verdicts weighed as the reference weighs its watched sites: ${pct(r.reweighted_redundancy)} ` +
				`(those sites hold ${pct(r.reweighted_coverage)} of the reference's judged bytes, where it says ${pct(r.reweighted_reference)}).`));

	app.append(section('The reference\u2019s top pairs, both sides', table([
		{title: 'rank', num: true, cell: p => p.reference_rank},
		{title: 'pair (watch => trap)', cell: p => h('span', {class: 'fn'}, p.pair)},
		{title: 'reference', num: true, cell: p => [bar(p.reference_share, max), pct(p.reference_share)]},
		{title: 'sampled', num: true, cell: p => p.sampled_rank === null ? 'missed' : [bar(p.sampled_share, max), pct(p.sampled_share)]},
		{title: 'sampled rank', num: true, cell: p => p.sampled_rank === null ? '-' : p.sampled_rank},
		{title: 'error', num: true, cell: p => p.error_points === null ? '-' : signed(p.error_points, 1)},
	], r.pairs)));

	const ranks = (side, other) => table([
		{title: 'rank', num: true, cell: p => p.rank},
		{title: 'share', num: true, cell: p => pct(p.share)},
		{title: 'pair (watch => trap)', cell: p => h('span', {class: 'fn'}, p.pair)},
		{title: 'other side', num: true, cell: p => {
			const o = other.pairs.find(q => q.pair === p.pair);
			return o ? `#${o.rank}, ${pct(o.share)}` : 'not in its top';
		}},
	], side.pairs);
	app.append(section('Each side\u2019s own top pairs', h('div', {class: 'side'},
		h('div', null, h('h3', null, `sampled: ${a.method}`), ranks(a, b)),
		h('div', null, h('h3', null, `reference: ${b.method}`), ranks(b, a)))));

	app.append(section('Watched sites: how much each side weighs them, and its verdict there', table([
		{title: 'site', cell: s => h('span', {class: 'fn'}, s.site)},
		{title: 'reference weight', num: true, cell: s => pct(s.reference_weight)},
		{title: 'sampled weight', num: true, cell: s => s.sampled_weight === null ? '-' : pct(s.sampled_weight)},
		{title: 'reference redundancy', num: true, cell: s => pct(s.reference_redundancy)},
		{title: 'sampled redundancy', num: true, cell: s => s.sampled_redundancy === null ? '-' : pct(s.sampled_redundancy)},
	], r.watched_sites)));
});
