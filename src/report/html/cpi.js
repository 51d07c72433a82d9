/*
 * cpi.js - the page of witch cpi's profiles (cpi.c): the functions,
 * loops and source lines tables, each row's time per execution coloured
 * from green (cheap) to red (dear), and the annotated source and
 * disassembly of the top functions.
 */
'use strict';
witch.draw((d, app) => {
	const {h, add, pct, count, fixed, ns, base, section, card, table, heat, range} = witch;
	const r = d.report, t = r.totals, ghz = r.nominal_ghz;
	const thin = row => row.significant ? null : 'thin';
	const mark = row => row.significant ? '' : '~';
	/* A column of time per execution, coloured on a log scale over its table. */
	const timed = (title, rows, get) => {
		const [lo, hi] = range(rows.map(get));
		return {title, num: true, cell: row => h('span', {style: heat(get(row), lo, hi)}, ns(get(row)))};
	};

	add(app, h('h1', null, 'witch report: time per execution (witch cpi)'),
		h('p', {class: 'meta'}, `a sampled run, ${count(t.samples)} samples at ${count(t.rate_hz)} Hz (${fixed(t.ns / 1e9, 3)} s of CPU), ` +
			`and a counting run, ${count(t.instructions)} instructions; sampled ${t.sampled_processes} process(es), ` +
			`${t.sampled_threads} thread(s); counted ${t.counted_processes} process(es), ${t.counted_threads} thread(s)`),
		h('p', {class: 'meta'}, `Time per execution is a row's time over its executions, in ns; ~ marks rows of fewer than 10 samples (not significant, greyed).` +
			(ghz ? ` Estimated CPI at ${fixed(ghz, 2)} GHz.` : '')),
		h('div', {class: 'cards'}, card(count(t.samples), 'samples'), card(count(t.instructions), 'instructions counted'),
			t.diverged_share > 0.001 ? card(pct(t.diverged_share), 'of the time on code the counting run never executed') : null),
		h('p', {class: 'legend'}, 'time per execution:', h('span', {class: 'swatch', style: heat(1, 1, 100)}), 'cheapest',
			h('span', {class: 'swatch', style: heat(100, 1, 100)}), 'dearest of its table'));

	const fns = r.functions;
	app.append(section(`Functions, by time with callees: ${fns.length} shown`, table([
		{title: '', cell: mark},
		{title: 'time%', num: true, cell: f => pct(f.inclusive_share)},
		{title: 'self%', num: true, cell: f => pct(f.samples_share)},
		{title: 'invocations', num: true, cell: f => count(f.executions)},
		timed('ns/exec', fns, f => f.inclusive_ns_per_execution),
		{title: 'instructions', num: true, cell: f => count(f.instructions)},
		{title: 'ns/insn', num: true, cell: f => fixed(f.ns_per_instruction, 2)},
		{title: 'function', cell: f => h('span', {class: 'fn'}, f.function)},
		{title: 'module', cell: f => h('span', {class: 'loc'}, base(f.module))},
	], fns, thin)));

	const loops = r.loops, hex = v => '0x' + Number(v).toString(16);
	app.append(section(`Loops, by time with callees: ${loops.length} shown`, loops.length ? table([
		{title: '', cell: mark},
		{title: 'loop (head\u2190tail)', cell: l => h('span', {class: 'mono', style: `padding-left:${l.depth * 1.5}em`}, `${hex(l.head)}\u2190${hex(l.tail)}`)},
		{title: 'lines', cell: l => h('span', {class: 'loc'}, l.file ? `${base(l.file)}:${l.first_line}-${l.last_line}` : '-')},
		{title: 'invocations', num: true, cell: l => count(l.invocations)},
		{title: 'iter/inv', num: true, cell: l => fixed(l.iterations_per_invocation, 1)},
		{title: 'insn/iter', num: true, cell: l => fixed(l.instructions_per_iteration, 1)},
		timed('ns/iter', loops, l => l.ns_per_iteration),
		{title: 'time% self/incl', num: true, cell: l => `${pct(l.self_share)}/${pct(l.inclusive_share)}`},
		{title: 'function', cell: l => h('span', {class: 'fn'}, l.function)},
	], loops, thin) : h('p', {class: 'note'}, '(none)')));

	const lines = r.lines;
	app.append(section(`Source lines, by time: ${lines.length} shown`, table([
		{title: '', cell: mark},
		{title: 'time%', num: true, cell: l => pct(l.samples_share)},
		{title: 'samples', num: true, cell: l => fixed(l.samples, 1)},
		{title: 'executions', num: true, cell: l => count(l.executions)},
		timed('ns/exec', lines, l => l.ns_per_execution),
		{title: 'line', cell: l => h('span', {class: 'loc'}, `${base(l.file)}:${l.line}`)},
		{title: 'function', cell: l => h('span', {class: 'fn'}, l.function)},
	], lines, thin)));

	/* Each top function's code: its source lines, each with its cost, over the instructions that are its. */
	const code = section(`Code of the ${d.code.length === 1 ? 'top function' : `top ${d.code.length} functions`} (own time)`);
	d.code.forEach((f, i) => {
		const insns = f.code.filter(c => c.disassembly !== undefined);
		const [lo, hi] = range(f.code.map(c => c.ns_per_execution));
		const rows = f.code.map(c => c.source !== undefined || c.file !== undefined
			? h('tr', {class: 'srcline'},
				h('td', {class: 'n'}, c.samples_share === undefined ? '' : pct(c.samples_share)),
				h('td', null, h('span', {class: 'loc'}, `${base(c.file)}:${c.line}`)),
				h('td', {class: 'text'}, c.source === null ? '(source not readable)' : c.source),
				h('td', {class: 'n'}, c.executions === undefined ? '' : count(c.executions)),
				h('td', {class: 'n', style: heat(c.ns_per_execution, lo, hi)}, c.ns_per_execution === undefined ? '' : ns(c.ns_per_execution)))
			: h('tr', {class: c.significant || !c.samples ? null : 'thin'},
				h('td', {class: 'n'}, c.samples ? fixed(c.samples, 1) : ''),
				h('td', {class: 'mono'}, Number(c.offset).toString(16)),
				h('td', null, c.disassembly || '?'),
				h('td', {class: 'n'}, count(c.executions)),
				h('td', {class: 'n', style: heat(c.ns_per_execution, lo, hi)}, ns(c.ns_per_execution))));
		code.append(h('details', {class: 'item', open: i === 0 ? '' : null},
			h('summary', null, h('span', {class: 'fn'}, f.function), h('span', {class: 'meta'},
				` (${base(f.module)}): ${pct(f.samples_share)} of the time in its own code, ${insns.length} instructions`)),
			h('div', {class: 'body'}, h('table', {class: 'code'},
				h('thead', null, h('tr', null, ['time% / samples', 'line / offset', 'source / instruction', 'executions', 'ns/exec']
					.map((c, k) => h('th', {class: k === 0 || k > 2 ? 'n' : null}, c)))),
				h('tbody', null, rows)))));
	});
	if (!d.code.length)
		code.append(h('p', {class: 'note'}, 'No function took any time.'));
	app.append(code);
});
