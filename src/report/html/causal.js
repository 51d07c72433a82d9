/*
 * causal.js - the page of causal profiles (causal.c): a plot per line,
 * ranked as the text report ranks them: program speedup against line
 * speedup, each point with its spread (one standard error) and the
 * least-squares line whose slope is the line's impact.
 */
'use strict';
witch.draw((d, app) => {
	const {h, add, svg, pct, count, fixed, signed, section, card} = witch;
	const r = d.report;

	add(app, h('h1', null, 'witch report: causal profile'),
		h('p', {class: 'meta'}, `${count(r.runs)} run${r.runs === 1 ? '' : 's'}, ${count(r.experiments)} experiments, ` +
			`${fixed(r.experiment_ns / 1e9, 3)} s of experiments (delays excluded)`),
		h('div', {class: 'cards'}, r.progress_points.map(p => card(count(p.kind === 'latency' ? p.arrivals : p.visits),
			`${p.kind === 'latency' ? 'arrivals' : 'visits'} during experiments at ${p.name} (${p.kind})`))),
		r.warnings.map(w => h('p', {class: 'warn'}, `warning: ${w}`)));

	const plots = h('div', {class: 'plots'});
	r.lines.forEach((c, i) => plots.append(h('div', {class: 'plot'},
		h('h3', null, `#${i + 1} `, h('span', {class: 'fn'}, c.location), c.function ? ` in ${c.function}()` : '',
			h('span', {class: 'meta'}, ` \u2192 ${c.progress_point}`), c.thin ? h('span', {class: 'rel'}, 'thin') : null),
		h('p', null, c.impact === null ? 'impact unknown (one line speedup only)'
			: `impact ${signed(c.impact, 3)}${c.slope_stderr === null ? '' : ` \u00b1 ${fixed(c.slope_stderr, 3)}`}` +
			  ` (program speedup per unit of line speedup); best measured ${signed(100 * c.max_program_speedup, 1)}%`),
		plot(c),
		h('p', {class: 'legend'}, `${c.points.length} line speedups, ${count(c.experiments)} experiments; baseline: ` +
			(c.baseline === 'line' ? "this line's 0% experiments" : "all lines' 0% experiments (pooled)") +
			(c.local_baseline ? ', each point against those nearest in time' : '') +
			`; phase correction ${c.phase_correction === null ? 'none' : '\u00d7' + fixed(c.phase_correction, 3)}`))));
	app.append(section(`Lines, by impact: ${r.lines.length} shown`,
		h('p', {class: 'legend'}, 'Each dot is the program speedup measured at one line speedup, phases corrected, ' +
			'its bar one standard error over its experiments (hollow: one experiment, no spread); ' +
			'the dashed line is the least-squares fit, whose slope is the impact.'),
		r.lines.length ? plots
		: h('p', {class: 'note'}, 'No line has a usable curve yet: see the warnings.')));

	/* Program speedup (y) against line speedup (x, 0 to 100 %). */
	function plot(c) {
		const W = 460, H = 240, L = 52, R = 22, T = 10, B = 34;
		const err = p => p.program_speedup_stderr || 0;
		let lo = 0, hi = 0.02;
		for (const p of c.points) {
			lo = Math.min(lo, p.program_speedup - err(p));
			hi = Math.max(hi, p.program_speedup + err(p));
		}
		const pad = (hi - lo) * 0.05;
		lo -= pad;
		hi += pad;
		const x = v => L + v * (W - L - R), y = v => T + (hi - v) / (hi - lo) * (H - T - B);
		const kids = [];
		for (const v of [0, 0.25, 0.5, 0.75, 1])
			kids.push(svg('line', {class: 'grid', x1: x(v), x2: x(v), y1: T, y2: H - B}),
				svg('text', {x: x(v), y: H - B + 14, 'text-anchor': 'middle'}, pct(v, 0)));
		for (const v of ticks(lo, hi))
			kids.push(svg('line', {class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v)}),
				svg('text', {x: L - 4, y: y(v) + 4, 'text-anchor': 'end'}, `${signed(100 * v, 0)}%`));
		kids.push(svg('line', {class: 'axis', x1: L, x2: W - R, y1: y(0), y2: y(0)}),
			svg('line', {class: 'axis', x1: L, x2: L, y1: T, y2: H - B}),
			svg('text', {x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle'}, 'line speedup'),
			svg('text', {x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle', transform: `rotate(-90 12 ${(T + H - B) / 2})`}, 'program speedup'));
		if (c.slope !== null && c.intercept !== null)
			kids.push(svg('line', {class: 'fit', x1: x(0), y1: y(c.intercept), x2: x(1), y2: y(c.intercept + c.slope),
				stroke: '#1565c0', 'stroke-width': 1.5, 'stroke-dasharray': '5 3'}));
		for (const p of c.points) {
			const e = err(p), cx = x(p.line_speedup), cy = y(p.program_speedup);
			kids.push(svg('g', null,
				e > 0 ? svg('line', {class: 'spread', x1: cx, x2: cx, y1: y(p.program_speedup + e), y2: y(p.program_speedup - e), stroke: '#b3261e'}) : null,
				svg('circle', {class: 'point', cx, cy, r: 3.5, fill: p.program_speedup_stderr === null ? '#fff' : '#b3261e', stroke: '#b3261e'},
					svg('title', null, `line ${pct(p.line_speedup, 0)} \u2192 program ${signed(100 * p.program_speedup, 1)}%` +
						(p.program_speedup_stderr === null ? '' : ` \u00b1 ${fixed(100 * p.program_speedup_stderr, 1)}`) +
						` (${count(p.experiments)} experiment${p.experiments === 1 ? '' : 's'})`))));
		}
		return svg('svg', {width: '100%', viewBox: `0 0 ${W} ${H}`, class: 'causal'}, kids);
	}

	/* A few round values between lo and hi. */
	function ticks(lo, hi) {
		const step = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5].find(s => (hi - lo) / s <= 6) || 10;
		const out = [];
		for (let v = Math.ceil(lo / step) * step; v <= hi; v += step)
			out.push(Math.round(v / step) * step);
		return out;
	}
});
