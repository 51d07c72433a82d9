/*
 * share.js - the page of tool share's profiles (share.c): how they were
 * sampled and the rate of sharing, false and true; the pairs of contexts
 * that shared cache lines, false sharing first as in the text report,
 * each opening into the lines it was seen on (where in the line each
 * access was, and what is there) and both contexts with their source; a
 * flame graph of all sharing by either context; how to read a finding.
 */
'use strict';
witch.draw((d, app) => {
	const {h, add, svg, pct, count, fixed, base, section, card, table, frames, excerpt, bar, flameGraphs} = witch;
	const r = d.report, t = r.totals, st = t.stats;
	const rate = x => fixed(x, 1);
	const plural = (n, one, many) => n === 1 ? one : many;
	const stat = k => count(st[k] || 0);
	const textLines = text => text.split('\n').filter(l => l);
	/* Lines listed under a pair; the rest are summed. */
	const LINES = 50;

	const procs = r.process_details.length;
	add(app, h('h1', null, document.title),
		h('p', {class: 'meta'}, `${d.sampling}, ${count(procs)} ${plural(procs, 'process', 'processes')}, ` +
			`${count(t.threads)} ${plural(t.threads, 'thread', 'threads')}`),
		textLines(d.processes).map(l => h('p', {class: 'meta'}, l)),
		h('p', {class: 'meta'}, `samples: ${stat('samples')} (stores published to the other threads ${stat('shared_samples')}, ` +
			`to the thread's own frames ${stat('private_samples')}); watches on other threads' stores: ${stat('share_watches')} ` +
			`(ended untripped ${stat('share_expired')}); traps: ${stat('traps')}`),
		textLines(d.notes).map(l => h('p', {class: 'warn'}, l)),
		h('div', {class: 'cards'},
			card(rate(t.per_cpu_second), `sharing per CPU-second, over ${fixed(t.cpu_seconds, 2)} s of the threads' CPU time`),
			card(rate(t.false_per_cpu_second), 'false sharing per CPU-second'),
			card(rate(t.true_per_cpu_second), 'true sharing per CPU-second'),
			card(count(t.pairs_found), 'pairs of contexts that shared a line'),
			card(count(t.traps), `traps from ${count(t.samples)} samples`)));

	/* Where in the line: "8-15 (adjacent+8)", "32-39 (block+0)". */
	const bytes = a => `${a.offset}-${a.offset + a.bytes - 1}` +
		(a.variable !== null ? ` (${a.variable}+${a.in_variable})` : a.in_block !== undefined ? ` (block+${a.in_block})` : '');
	/* The 64-byte line, its 8-byte words outlined, the store's bytes
	 * above and the other access's below. */
	const picture = l => {
		const px = 3, a = l.first, b = l.second;
		return svg('svg', {class: 'cacheline', width: 64 * px + 1, height: 17, viewBox: `0 0 ${64 * px + 1} 17`},
			svg('title', null, `the 64-byte line, its 8-byte words outlined: the store at bytes ${bytes(a)}, the other access at bytes ${bytes(b)}`),
			[0, 1, 2, 3, 4, 5, 6, 7].map(k => svg('rect', {class: 'word', x: k * 8 * px + 0.5, y: 0.5, width: 8 * px, height: 16})),
			svg('rect', {class: 'store', x: a.offset * px + 0.5, y: 2, width: a.bytes * px, height: 6}),
			svg('rect', {class: 'other', x: b.offset * px + 0.5, y: 9, width: b.bytes * px, height: 6}));
	};
	/* The line as the text report names it: in a module, or an address
	 * (in a heap block, with its size and the call that allocated it). */
	const where = (l, site) => l.module !== null ? `${base(l.module)}+${l.offset}` : l.address +
		(l.heap_block ? `, in a heap block of ${count(l.heap_block.bytes)} ${plural(l.heap_block.bytes, 'byte', 'bytes')}` +
			(site ? ` allocated at ${site}` : '') : '');
	const lineTable = (p, sites) => {
		const shown = p.lines.slice(0, LINES).map((l, k) => ({l, site: sites[k]})), rest = p.lines.slice(LINES);
		return [table([
			{title: 'line', cell: x => h('span', {class: 'chain'}, where(x.l, x.site))},
			{title: 'store at bytes', cell: x => h('span', {class: 'bytes'}, bytes(x.l.first))},
			{title: 'other access at bytes', cell: x => h('span', {class: 'bytes'}, bytes(x.l.second))},
			{title: 'in the line', cell: x => picture(x.l)},
			{title: 'per CPU-second', num: true, cell: x => rate(x.l.per_cpu_second)},
			{title: 'traps', num: true, cell: x => count(x.l.traps)},
		], shown),
		rest.length ? h('p', {class: 'meta'}, `and ${count(rest.length)} more lines (` +
			`${rate(rest.reduce((s, l) => s + l.per_cpu_second, 0))} per CPU-second, ` +
			`${count(rest.reduce((s, l) => s + l.traps, 0))} traps)`) : null,
		h('p', {class: 'legend'}, 'in the line: ', h('span', {class: 'swatch store'}), 'the store\'s bytes, ',
			h('span', {class: 'swatch other'}), 'the other access\'s, in the line\'s 8-byte words')];
	};

	/* The pairs found, false sharing first, as in the text report. */
	const found = t.pairs_found, pairs = r.pairs.slice(0, found);
	const top = pairs.reduce((m, p) => Math.max(m, p.share), 0);
	const list = section(`Pairs of contexts that shared a cache line, false sharing first: ${pairs.length} shown; ${count(found)} found`);
	pairs.forEach((p, i) => {
		const line = d.chains[i], ex = d.excerpts[i] || [], sites = d.sites[i], alloc = d.alloc_excerpts[i];
		const body = h('div', {class: 'body'});
		const item = h('details', {class: 'item pair', open: i === 0 ? '' : null},
			h('summary', null, h('span', {class: 'rank'}, `#${i + 1}`), bar(p.share, top), h('span', {class: 'share'}, pct(p.share)),
				h('span', {class: `kind ${p.kind}`}, `${p.kind} sharing, ${rate(p.per_cpu_second)} per CPU-second`),
				h('span', {class: 'chain'}, line[0]), h('span', {class: 'rel'}, p.relation), h('span', {class: 'chain'}, line[1]),
				h('span', {class: 'meta'}, `  (${count(p.traps)} ${plural(p.traps, 'trap', 'traps')})`)),
			body);
		/* Drawn when first opened: a page of many pairs opens fast. */
		const fill = () => {
			if (body.childElementCount)
				return;
			add(body, h('h3', null, `seen on ${count(p.lines.length)} ${plural(p.lines.length, 'line', 'lines')}`),
				lineTable(p, sites),
				excerpt(alloc, 'the heap block\'s allocation'),
				h('div', {class: 'side'},
					h('div', null, h('h3', null, 'store (sampled)'), frames(p.first), excerpt(ex[0], 'store site')),
					h('div', null, h('h3', null, 'other access (another thread)'), frames(p.second), excerpt(ex[1], 'other access site'))));
		};
		item.addEventListener('toggle', fill);
		if (i === 0)
			fill();
		list.append(item);
	});
	if (t.most_threads_in_a_process < 2)
		list.append(h('p', {class: 'note'}, 'Nothing to find: sharing needs two threads of one process, and each process here had one.'));
	else if (!pairs.length)
		list.append(h('p', {class: 'note'}, `No sharing found: no thread accessed the cache line of another's sampled store ` +
			`(${stat('share_watches')} ${plural(st.share_watches || 0, 'watch', 'watches')}).`));
	else if (pairs.length < found)
		list.append(h('p', {class: 'meta'}, `showing ${pairs.length} of ${count(found)} pairs ` +
			`(${pct(pairs.reduce((s, p) => s + p.share, 0))} of all sharing); --top=N shows more`));
	app.append(list);

	/* Weights as rates, as everywhere on the page. */
	const say = v => t.cpu_seconds > 0 ? `${rate(v / t.cpu_seconds)} per CPU-second` : `weight ${count(v)}`;
	app.append(section('Flame graph of sharing (every pair)',
		flameGraphs(['by store context', 'by other access context'], [d.flame.first, d.flame.second], say)));

	app.append(section('Reading it', h('p', null, d.reading.replace(/^reading it: (.)/, (m, c) => c.toUpperCase()).replace(/\s+/g, ' ').trim())));
});
