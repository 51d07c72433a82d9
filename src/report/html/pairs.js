/*
 * pairs.js - the page of record and spy profiles (pairs.c): totals, the
 * ranked pairs with their contexts and source, and an icicle flame graph
 * of every pair's weight by its first or its second context.
 */
'use strict';
witch.draw((d, app) => {
	const {h, svg, pct, count, fixed, section, card, frames, excerpt, bar, tabs} = witch;
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
	const flames = [d.flame.first, d.flame.second], trees = [null, null];
	const box = h('div', {class: 'flamebox'}), note = h('p', {class: 'meta'});
	let by = 0;
	const show = (i, focus) => {
		by = i;
		trees[i] = trees[i] || parse(flames[i]);
		drawFlame(box, note, trees[i], focus || 0, unit, node => show(by, node));
	};
	app.append(section(`Flame graph of ${rvn ? 'redundant executions' : 'waste'} (every pair)`,
		tabs([`by ${ctx[0]} context`, `by ${ctx[1]} context`], 0, i => show(i)), note, box));
	show(0);

	/* flame.c's tree, {total, names, nodes: [parent, name, value, ...]}, as
	 * arrays indexed by node (0 the root), each node's children in
	 * kids[first[node]] to kids[first[node + 1]]: no object per node. */
	function parse(f) {
		const n = f.nodes.length / 3 + 1, flat = f.nodes;
		const up = new Int32Array(n), name = new Int32Array(n), value = new Float64Array(n);
		const first = new Int32Array(n + 1), kids = new Int32Array(n), next = new Int32Array(n);
		up[0] = -1;
		value[0] = f.total;
		for (let i = 1; i < n; i++) {
			up[i] = flat[3 * i - 3];
			name[i] = flat[3 * i - 2];
			value[i] = flat[3 * i - 1];
			first[up[i] + 1]++;
		}
		for (let i = 0; i < n; i++)
			first[i + 1] += first[i];
		next.set(first.subarray(0, n));
		for (let i = 1; i < n; i++)
			kids[next[up[i]]++] = i;
		return {up, value, first, kids, label: i => i ? f.names[name[i]] : 'all'};
	}

	/* An icicle: root on top. Frames narrower than a pixel and a half are
	 * not drawn (nor their callees): the page stays light whatever the
	 * number of stacks. Clicking a frame zooms to it; its callers stay
	 * above it, full width. */
	function drawFlame(box, note, t, focus, unit, zoom) {
		/* The page's width, without laying it out. */
		const W = Math.max(600, Math.min(window.innerWidth, 1400) - 64), rowH = 18, minW = 1.5, maxDepth = 150;
		const cells = [], path = [];
		for (let n = focus; n >= 0; n = t.up[n])
			path.unshift(n);
		path.forEach((n, i) => cells.push([0, i, W, n]));
		const walk = (n, x, depth, width) => {
			if (depth >= maxDepth)
				return;
			/* Only the wide enough are sorted: a node may have thousands of callees. */
			const wide = [];
			for (let k = t.first[n]; k < t.first[n + 1]; k++)
				if (width * t.value[t.kids[k]] / t.value[n] >= minW)
					wide.push(t.kids[k]);
			let cx = x;
			for (const kid of wide.sort((a, b) => t.value[b] - t.value[a])) {
				const kw = width * t.value[kid] / t.value[n];
				cells.push([cx, depth, kw, kid]);
				walk(kid, cx, depth + 1, kw);
				cx += kw;
			}
		};
		if (t.value[focus] > 0)
			walk(focus, 0, path.length, W);
		const depth = cells.reduce((m, c) => Math.max(m, c[1]), 0) + 1;
		const hue = s => { let x = 0; for (let i = 0; i < s.length; i++) x = (x * 31 + s.charCodeAt(i)) | 0; return 10 + Math.abs(x) % 45; };
		const g = cells.map(([x, y, cw, n]) => {
			const name = t.label(n), share = t.value[0] ? t.value[n] / t.value[0] : 0;
			const chars = Math.floor((cw - 6) / 6.6);
			return svg('g', {transform: `translate(${x.toFixed(1)},${y * rowH})`, onclick: () => zoom(n)},
				svg('rect', {width: Math.max(cw - 0.5, 0.5).toFixed(1), height: rowH - 1,
					fill: n === focus ? '#999' : `hsl(${hue(name)}, 85%, ${y < path.length - 1 ? 80 : 62}%)`}),
				svg('title', null, `${name}\n${count(t.value[n])} ${unit} (${pct(share, 2)})`),
				chars >= 3 ? svg('text', {x: 3, y: rowH - 5}, name.length > chars ? name.slice(0, chars - 1) + '\u2026' : name) : null);
		});
		box.replaceChildren(svg('svg', {class: 'flame', width: W, height: depth * rowH, viewBox: `0 0 ${W} ${depth * rowH}`}, g));
		note.textContent = `${count(t.value[0])} ${unit} in all; ${focus === 0 ? 'click a frame to zoom to it' :
			`zoomed to ${t.label(focus)} (${pct(t.value[focus] / t.value[0], 2)}): click a frame above it to zoom out`}` +
			(depth >= maxDepth ? `; deeper than ${maxDepth} frames not drawn (zoom in)` : '');
	}
});
