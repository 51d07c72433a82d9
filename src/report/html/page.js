/*
 * page.js - what every witch report page shares: the embedded data,
 * making elements, numbers, tables, contexts, source excerpts and flame
 * graphs. Each kind's script (pairs.js, loops.js, ...) follows and calls
 * witch.draw. When the page is drawn, <html data-render-ms> holds the
 * milliseconds since navigation began (the tests read it).
 */
'use strict';
const witch = (() => {
	const SVG = 'http://www.w3.org/2000/svg';

	/* An element: h('td', {class: 'n'}, 'text', child, [more]).
	 * Text goes in as text, never as markup. */
	function make(el, attrs, kids) {
		for (const [k, v] of Object.entries(attrs || {})) {
			if (v === null || v === undefined || v === false)
				continue;
			if (k.startsWith('on'))
				el.addEventListener(k.slice(2), v);
			else
				el.setAttribute(k, v);
		}
		for (const kid of kids.flat(Infinity)) {
			if (kid === null || kid === undefined || kid === false)
				continue;
			el.append(kid instanceof Node ? kid : String(kid));
		}
		return el;
	}
	const h = (tag, attrs, ...kids) => make(document.createElement(tag), attrs, kids);
	/* Append to el, leaving out null and false as h does (append would write "null"). */
	const add = (el, ...kids) => make(el, null, kids);
	const svg = (tag, attrs, ...kids) => make(document.createElementNS(SVG, tag), attrs, kids);

	/* Numbers as the text report writes them. */
	const fixed = (x, d) => (x === null || x === undefined || !isFinite(x)) ? '-' : Number(x).toFixed(d);
	const pct = (x, d = 1) => (x === null || x === undefined || !isFinite(x)) ? '-' : (100 * x).toFixed(d) + '%';
	const thousands = new Intl.NumberFormat('en-US');	/* toLocaleString makes one a call: slow */
	const count = x => (x === null || x === undefined) ? '-' : thousands.format(x);
	/* Nanoseconds: two decimals while small, whole ones beyond. */
	const ns = x => (x === null || x === undefined || !isFinite(x)) ? '-' : x < 100 ? x.toFixed(2) : thousands.format(Math.round(x));
	const signed = (x, d) => (x >= 0 ? '+' : '') + fixed(x, d);
	const base = path => path ? path.slice(path.lastIndexOf('/') + 1) : '??';

	/* A share of the largest as a bar. */
	const bar = (x, max) => h('span', {class: 'barbox'},
		h('span', {class: 'bar', style: `width:${Math.max(0, Math.min(1, max > 0 ? x / max : 0)) * 100}%`}));

	const section = (title, ...kids) => h('section', null, h('h2', null, title), kids);
	const card = (big, label) => h('div', {class: 'card'}, h('div', {class: 'big'}, big), h('div', {class: 'label'}, label));

	/* A table: cols are {title, num, cell: row => content}; rowClass
	 * (optional) gives each row a class. */
	function table(cols, rows, rowClass) {
		return h('table', null,
			h('thead', null, h('tr', null, cols.map(c => h('th', {class: c.num ? 'n' : null}, c.title)))),
			h('tbody', null, rows.map(r => h('tr', {class: rowClass ? rowClass(r) : null},
				cols.map(c => h('td', {class: c.num ? 'n' : null}, c.cell(r)))))));
	}

	/* A frame's function, or where its code is. */
	const frameName = f => f.function || `${base(f.module)}+${f.offset}`;
	const frameLoc = f => f.file ? `${base(f.file)}${f.line ? ':' + f.line : ''}` : '??';

	/* A context's frames, leaf first, one per row. */
	const frames = list => table([
		{title: 'function', cell: f => h('span', {class: 'fn'}, frameName(f))},
		{title: 'source', cell: f => h('span', {class: 'loc'}, frameLoc(f))},
		{title: 'code', cell: f => h('span', {class: 'loc'}, `${base(f.module)}+${f.offset}${f.inlined ? ' (inlined)' : ''}`)},
	], list);

	/* A source excerpt (excerpt.c's object); `reads` lines get a mark. */
	function excerpt(ex, caption, reads = []) {
		if (!ex)
			return null;
		if (ex.error)
			return h('p', {class: 'note'}, `${caption}: source not shown: ${ex.error}`);
		const [m0, m1] = ex.mark;
		const lines = ex.text.map((t, i) => {
			const n = ex.first + i;
			return h('span', {class: n >= m0 && n <= m1 ? 'hit' : null},
				h('span', {class: 'ln'}, n), h('span', {class: reads.includes(n) ? 'read' : null}, t), '\n');
		});
		return h('figure', {class: 'src'},
			h('figcaption', null, `${caption}: ${ex.function ? `in ${ex.function}, ` : ''}${ex.path}:${m0}${m1 > m0 ? '-' + m1 : ''}`,
				ex.leaf_error ? ` (the access's own source is not shown: ${ex.leaf_error})` : ''),
			h('pre', null, lines));
	}

	/* A colour for v on a log scale from lo (green) to hi (red). */
	function heat(v, lo, hi) {
		if (!(v > 0) || !(hi > lo))
			return null;
		const t = Math.max(0, Math.min(1, Math.log(v / lo) / Math.log(hi / lo)));
		return `background: hsl(${120 - 120 * t}, 70%, ${88 - 10 * t}%)`;
	}
	/* The range of the positive values, for heat. */
	function range(values) {
		const pos = values.filter(v => v > 0 && isFinite(v));
		return pos.length ? [pos.reduce((a, b) => Math.min(a, b)), pos.reduce((a, b) => Math.max(a, b))] : [0, 0];
	}

	/* Clickable buttons of which one is on. */
	function tabs(names, on, pick) {
		const box = h('div', {class: 'tabs'});
		names.forEach((name, i) => box.append(h('button', {class: i === on ? 'on' : null, type: 'button', onclick: () => {
			[...box.children].forEach((b, j) => b.classList.toggle('on', j === i));
			pick(i);
		}}, name), ' '));
		return box;
	}

	/* Flame graphs of flame.c's trees, one shown at a time, picked with
	 * tabs named names: [tabs, note, graph], the first drawn. say(v)
	 * words a weight v ("1,234 bytes"). */
	function flameGraphs(names, flames, say) {
		const trees = flames.map(() => null), box = h('div', {class: 'flamebox'}), note = h('p', {class: 'meta'});
		let by = 0;
		const show = (i, focus) => {
			by = i;
			trees[i] = trees[i] || parseFlame(flames[i]);
			drawFlame(box, note, trees[i], focus || 0, say, node => show(by, node));
		};
		const picker = tabs(names, 0, i => show(i));
		show(0);
		return [picker, note, box];
	}

	/* flame.c's tree, {total, names, nodes: [parent, name, value, ...]}, as
	 * arrays indexed by node (0 the root), each node's children in
	 * kids[first[node]] to kids[first[node + 1]]: no object per node. */
	function parseFlame(f) {
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
	function drawFlame(box, note, t, focus, say, zoom) {
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
				svg('title', null, `${name}\n${say(t.value[n])} (${pct(share, 2)})`),
				chars >= 3 ? svg('text', {x: 3, y: rowH - 5}, name.length > chars ? name.slice(0, chars - 1) + '\u2026' : name) : null);
		});
		box.replaceChildren(svg('svg', {class: 'flame', width: W, height: depth * rowH, viewBox: `0 0 ${W} ${depth * rowH}`}, g));
		note.textContent = `${say(t.value[0])} in all; ${focus === 0 ? 'click a frame to zoom to it' :
			`zoomed to ${t.label(focus)} (${pct(t.value[focus] / t.value[0], 2)}): click a frame above it to zoom out`}` +
			(depth >= maxDepth ? `; deeper than ${maxDepth} frames not drawn (zoom in)` : '');
	}

	/* Links to the page's sections, before the first. */
	function contents(app) {
		const heads = [...app.querySelectorAll('section > h2')];
		if (heads.length < 2)
			return;
		const nav = h('nav', {class: 'contents'}, 'on this page: ');
		heads.forEach((head, i) => {
			head.parentNode.id = `s${i + 1}`;
			nav.append(h('a', {href: `#s${i + 1}`}, head.textContent.replace(/:.*/, '')), i + 1 < heads.length ? ' · ' : '');
		});
		heads[0].parentNode.before(nav);
	}

	/* Draw the page with draw(data, app) once the document is parsed. */
	function draw(fn) {
		document.addEventListener('DOMContentLoaded', () => {
			const app = document.getElementById('app');
			const data = JSON.parse(document.getElementById('witch-data').textContent);
			app.replaceChildren();
			try {
				fn(data, app);
			} catch (e) {
				app.append(h('p', {class: 'error'}, `This page could not be drawn: ${e}`));
				throw e;
			}
			contents(app);
			void app.offsetHeight;	/* lay it out: part of the time to draw */
			document.documentElement.dataset.renderMs = performance.now().toFixed(1);
		});
	}

	return {h, add, svg, fixed, pct, count, ns, signed, base, bar, section, card, table, frames,
		frameName, frameLoc, excerpt, heat, range, tabs, flameGraphs, draw};
})();
