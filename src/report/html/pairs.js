/*
 * pairs.js - the page of record and spy profiles (pairs.c): totals, the
 * ranked pairs with their contexts and source, and an icicle flame graph
 * of every pair's weight by its first or its second context.
 */
'use strict';
witch.draw((d, app) => {
	const {h, pct, count, fixed, section, card, frames, excerpt, bar, flameGraphs} = witch;
	const r = d.report, t = r.totals, w = d.words, rvn = w.counts_executions;
	const ctx = rvn ? ['first', 'again'] : ['watch', 'trap'];
	const unit = rvn ? 'redundant executions' : 'bytes';

	app.append(h('h1', null, `witch report: ${w.what} (${w.method})`));
	const procs = r.process_details.length, threads = t.threads;
	app.append(h('p', {class: 'meta'}, `command: ${r.command.join(' ') || '(not recorded)'}`),
		h('p', {class: 'meta'}, `${count(procs)} process${procs === 1 ? '' : 'es'}, ${count(threads)} thread${threads === 1 ? '' : 's'}; `,
			w.exhaustive ? `exhaustive (every ${w.access} observed)`
				: `${r.source} sampling${r.rate_hz ? ` at ${r.rate_hz} Hz` : ''}` +
				  (r.spread > 1 ? `, each sample one of the next ${r.spread} ${w.access}s` : '')));

	if (rvn) {
		const kinds = [['computations', 'redundant', 'redundancy'], ['loads', 'redundant_loads', 'load_redundancy'],
			['stores', 'redundant_stores', 'store_redundancy'], ['all', 'all_redundant', 'all_redundancy']];
		app.append(h('div', {class: 'cards'}, kinds.map(([all, red, frac]) =>
			card(pct(t[frac]), `redundant ${all === 'all' ? 'instructions, all kinds' : all}: ${count(t[red])} of ${count(t[all])}`))));
	} else {
		app.append(h('div', {class: 'cards'},
			card(pct(t.redundancy), `${w.fraction} of observed bytes (WITCH Eq. 1): waste ${fixed(t.waste_bytes, 1)} / (waste + use ${fixed(t.use_bytes, 1)})`),
			t.waste_of_accessed !== null ? card(pct(t.waste_of_accessed), `of all bytes ${w.accessed}`) : null,
			t.approx_waste_bytes > 0 ? card(pct(t.approx_redundancy), `approximately ${w.what} (floating-point values within the tolerance)`) : null,
			card(count(t.pairs_with_waste), 'pairs of contexts with waste'),
			w.exhaustive ? null : card(count(t.traps), `traps from ${count(t.samples)} samples`)));
	}

	/* The pairs, each expandable into its two contexts and their source. */
	/* Those with waste (or redundant executions), as in the text report. */
	const found = rvn ? t.pairs_found : t.pairs_with_waste, pairs = r.pairs.slice(0, found);
	const weight = p => rvn ? p.redundant : p.waste_bytes;
	const top = pairs.length ? pairs[0].share : 0;
	const list = section(`Pairs of contexts, by ${rvn ? 'redundant executions' : 'waste'}: ${pairs.length} shown; ${count(found)} with ${rvn ? 'any' : 'waste'}`);
	pairs.forEach((p, i) => {
		const first = p[ctx[0]], second = p[ctx[1]], ex = d.excerpts[i] || [], line = d.chains[i];
		const body = h('div', {class: 'body'});
		const item = h('details', {class: 'item pair', open: i === 0 ? '' : null},
			h('summary', null, h('span', {class: 'rank'}, `#${i + 1}`), bar(p.share, top), h('span', {class: 'share'}, pct(p.share)),
				h('span', {class: 'chain'}, line[0]), h('span', {class: 'rel'}, w.relation), h('span', {class: 'chain'}, line[1]),
				h('span', {class: 'meta'}, rvn ? `  (${p.kind}, ${count(p.redundant)} redundant)`
					: `  (waste ${fixed(p.waste_bytes, 1)}, use ${fixed(p.use_bytes, 1)}, ${count(p.traps)} ${w.exhaustive ? 'occurrence' : 'trap'}${p.traps === 1 ? '' : 's'})`)),
			body);
		/* The contexts are drawn when first opened: a page of many pairs opens fast. */
		const fill = () => {
			if (body.childElementCount)
				return;
			body.append(h('div', {class: 'side'},
				h('div', null, h('h3', null, `${ctx[0]}: ${count(weight(p))} ${unit}`), frames(first), excerpt(ex[0], `${ctx[0]} site`)),
				h('div', null, h('h3', null, `${ctx[1]}`), frames(second), excerpt(ex[1], `${ctx[1]} site`))));
		};
		item.addEventListener('toggle', fill);
		if (i === 0)
			fill();
		list.append(item);
	});
	if (!pairs.length)
		list.append(h('p', {class: 'note'}, `No ${w.what} observed` +
			(!w.exhaustive && !t.samples ? ' (no sample was taken: the program may have run too briefly, or its threads could not be sampled).' : '.')));
	app.append(list);

	/* The flame graph: stacks root first, widths by weight. */
	app.append(section(`Flame graph of ${rvn ? 'redundant executions' : 'waste'} (every pair)`,
		flameGraphs([`by ${ctx[0]} context`, `by ${ctx[1]} context`], [d.flame.first, d.flame.second], v => `${count(v)} ${unit}`)));
});
