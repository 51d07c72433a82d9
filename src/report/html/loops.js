/*
 * loops.js - the page of tool loop's profiles (loops.c): the totals, then
 * the loops, flagged first, each with its context, its counts and its
 * source, the loop's lines marked and its most redundant loads underlined.
 */
'use strict';
witch.draw((d, app) => {
	const {h, add, pct, count, fixed, base, section, card, frames, excerpt, table, bar} = witch;
	const r = d.report, t = r.totals, th = r.thresholds;
	const lines = l => l.file ? `${base(l.file)}:${l.first_line}-${l.last_line}` : '??';

	app.append(h('h1', null, 'witch report: loops that re-read (read sets, exhaustive)'),
		h('p', {class: 'meta'}, `command: ${r.command.join(' ') || '(not recorded)'}`),
		h('p', {class: 'meta'}, `${count(r.processes.length)} process${r.processes.length === 1 ? '' : 'es'}, ${count(t.threads)} thread${t.threads === 1 ? '' : 's'}`),
		h('p', {class: 'meta'}, `thresholds ${th.a},${th.r},${th.ri}: an iteration of at least ${th.a} reads is data-intensive, ` +
			`and redundant when at least ${pct(th.r, 0)} of its reads were of an (address, value) an earlier iteration read; ` +
			`a loop is flagged when at least ${pct(th.ri, 0)} of its data-intensive iterations are redundant`),
		h('div', {class: 'cards'},
			card(count(t.loops_flagged), `loops flagged, of ${count(t.loops_reading)} that read (each loop once per calling context)`),
			card(pct(t.redundant_share), `of all reads redundant (${count(t.redundant_reads)} of ${count(t.reads)})`),
			card(pct(t.reads ? t.reads_in_loops / t.reads : 0), `of reads in loops (${count(t.reads_in_loops)})`)));

	const rows = r.loops, top = rows.length ? rows.reduce((m, l) => Math.max(m, l.redundant_reads), 0) : 0;
	const list = section(`Loops, flagged first, then by redundant reads: ${rows.length} shown of ${count(t.loops)}`);
	rows.forEach((l, i) => {
		const body = h('div', {class: 'body'});
		const item = h('details', {class: 'item loop', open: l.flagged && i < 10 ? '' : null},
			h('summary', null, h('span', {class: 'rank'}, `#${i + 1}`),
				l.flagged ? h('span', {class: 'rel'}, 'flagged') : null,
				h('span', {class: 'fn'}, l.function || '??'), ' ', h('span', {class: 'loc'}, `(${lines(l)})`), ' ',
				bar(l.redundant_reads, top),
				h('span', {class: 'meta'}, `${count(l.redundant_reads)} of ${count(l.reads)} reads redundant (${pct(l.redundant_share)})`)),
			body);
		const fill = () => {
			if (body.childElementCount)
				return;
			const reads = l.top_reads.filter(s => s.file && l.file && base(s.file) === base(l.file)).map(s => s.line);
			add(body,
				h('p', null, 'context: ', h('span', {class: 'chain'}, d.chains[i])),
				h('p', null, `invocations ${count(l.invocations)}; iterations ${count(l.iterations)}, ${fixed(l.reads_per_iteration, 1)} reads each; ` +
					`data-intensive ${count(l.data_iterations)}, of which redundant ${count(l.redundant_iterations)}: ratio ${fixed(l.ratio, 2)}` +
					(l.data_iterations ? ` ${l.ratio >= th.ri ? '>=' : '<'} RI ${th.ri}` : '')),
				l.parent ? h('p', null, `nested in the loop at ${lines(l.parent)}`) : null,
				h('h3', null, 'most redundant loads'),
				table([
					{title: 'function', cell: s => h('span', {class: 'fn'}, s.function || '??')},
					{title: 'source', cell: s => h('span', {class: 'loc'}, s.file ? `${base(s.file)}:${s.line}` : '??')},
					{title: 'redundant reads', num: true, cell: s => count(s.redundant_reads)},
				], l.top_reads),
				excerpt(d.excerpts[i], 'the loop', reads),
				h('details', null, h('summary', null, 'calling context, leaf first'), frames(l.context)));
		};
		item.addEventListener('toggle', fill);
		if (item.open)
			fill();
		list.append(item);
	});
	if (!rows.length)
		list.append(h('p', {class: 'note'}, 'No loop read anything.'));
	app.append(list);
});
