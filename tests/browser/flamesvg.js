// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// Loads --svg flame graphs in Debian's chromium (puppeteer-core, headless,
// one launch for all of them):
//   node flamesvg.js SVG FUNCTION EXPECTED_PCT SCREENSHOT [PNG SVG FUNCTION]...
// The first SVG is checked as a reader would use it: FUNCTION's frames
// must hold EXPECTED_PCT of the width (within 1% of it), a click on its
// widest frame makes that frame the full width, the search finds it and
// states its share, hovering names it, and the page raises no JavaScript
// error; SCREENSHOT is the page after the search.
// Then, when the next arguments are --diff DIFF_SVG GREW SHRUNK SCREENSHOT2,
// a differential graph (--svg with --diff) in the same browser: GREW's
// frames are filled red-ish, SHRUNK's blue-ish, the legend's ramp runs
// from blue to red with its values, hovering GREW gives its before, after
// and change, and the page raises no JavaScript error.
// Each further triple is a picture for docs/ (scripts/pictures.sh): SVG
// loaded untouched in a page of its own, without a JavaScript error, with
// FUNCTION a frame whose label reads in full, written to PNG at the
// graph's own size (1200 px wide, clipped to its height).
// Each check is one TAP line ("ok - ..." / "not ok - ...").
'use strict';
const path = require('path');
const { check, run } = require('./harness');

const [svg, fn, expectArg, shot, ...rest] = process.argv.slice(2);
const [diffFlag, dsvg, grew, shrunk, dshot] = rest[0] === '--diff' ? rest.slice(0, 5) : [];
const more = rest[0] === '--diff' ? rest.slice(5) : rest;
const expected = Number(expectArg);
function near(got, want, pct) {
	return Number.isFinite(got) && Math.abs(got - want) <= Math.abs(want) * pct / 100;
}

// The fill of each frame named n as the browser paints it: [r, g, b]
function fills(page, n) {
	return page.evaluate((n) => [...document.querySelectorAll('g.f')]
		.filter((g) => { const t = g.querySelector('title').textContent;
				 return t.slice(0, t.lastIndexOf(' (')) === n; })
		.map((g) => getComputedStyle(g.querySelector('rect')).fill.match(/\d+/g).map(Number)), n);
}

const reddish = (c) => c[0] - c[2] >= 30 && c[0] - c[1] >= 30;
const bluish = (c) => c[2] - c[0] >= 30;

// A page of its own for svg, its errors collected
async function open(browser, svg) {
	const page = await browser.newPage();
	const errors = [];
	page.on('pageerror', (e) => errors.push(String(e)));
	page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
	await page.setViewport({ width: 1200, height: 900 });
	await page.goto('file://' + path.resolve(svg), { waitUntil: 'load' });
	return { page, errors };
}

async function checkDiff(browser) {
	const { page, errors } = await open(browser, dsvg);
	const up = await fills(page, grew), down = await fills(page, shrunk);
	check(`diff: ${grew}'s frames are red-ish (grew)`, up.length > 0 && up.every(reddish),
	      JSON.stringify(up));
	check(`diff: ${shrunk}'s frames are blue-ish (shrank)`, down.length > 0 && down.every(bluish),
	      JSON.stringify(down));
	const legend = await page.evaluate(() => {
		const l = document.getElementById('diff-legend');
		if (!l)
			return null;
		const ramp = [...l.querySelectorAll('rect.ramp')].map((r) => ({
			c: Number(r.getAttribute('data-c')),
			rgb: getComputedStyle(r).fill.match(/\d+/g).map(Number),
		}));
		return { ramp, text: l.textContent, w: l.getBBox().width,
			 title: document.getElementById('title').textContent };
	});
	check('diff: the legend shows the colour ramp, blue to red, with its values',
	      legend && legend.w > 100 && legend.ramp.length === 11 &&
	      bluish(legend.ramp[0].rgb) && reddish(legend.ramp[10].rgb) &&
	      legend.ramp[0].c === -legend.ramp[10].c && legend.ramp[10].c > 0 &&
	      legend.text.includes(`-${legend.ramp[10].c} `) && legend.text.includes(`+${legend.ramp[10].c} `) &&
	      /shrank/.test(legend.text) && /grew/.test(legend.text),
	      legend && legend.text.replace(/\s+/g, ' '));
	check('diff: the title says what the run is set against', legend && / against \S/.test(legend.title),
	      legend && legend.title);
	const el = (await page.evaluateHandle((n) => [...document.querySelectorAll('g.f')]
		.find((g) => g.querySelector('title').textContent.startsWith(n + ' (')), grew)).asElement();
	if (el) {
		await el.hover();
		const det = await page.$eval('#details', (e) => e.textContent);
		check(`diff: hovering ${grew} gives its value now, before and the change`,
		      /^\S+: (\d+) \S+, .*; before (\d+) \S+, change \+(\d+) /.test(det) &&
		      (([, a, b, c]) => +a - +b === +c)(/: (\d+) .*before (\d+) .*change \+(\d+)/.exec(det)), det);
		await page.mouse.move(0, 0);
	} else {
		check(`diff: ${grew} is a frame`, false);
	}
	await (await page.$('svg')).screenshot({ path: dshot });
	check('diff: no JavaScript error on the page', errors.length === 0, errors.join('; '));
	await page.close();
}

// The first SVG, used: widths, hover, zoom, search; its screenshot
async function interactive(browser) {
	const { page, errors } = await open(browser, svg);

	// the frames as drawn: rect widths over the full width (the root's)
	const drawn = await page.evaluate((fn) => {
		const out = [];
		let full = 0;
		for (const g of document.querySelectorAll('g.f')) {
			const t = g.querySelector('title').textContent;
			const n = t.slice(0, t.lastIndexOf(' ('));
			const w = Number(g.querySelector('rect').getAttribute('width'));
			if (g.getAttribute('data-d') === '0')
				full = w;
			if (n === fn)
				out.push({ w, s: Number(g.getAttribute('data-s')),
					   v: Number(g.getAttribute('data-v')) });
		}
		return { frames: out, full, script: !!window.flamegraph };
	}, fn);
	check('the page ran its script', drawn.script);
	check(`${fn} is a frame of the flame graph`, drawn.frames.length > 0,
	      `${drawn.frames.length} frames`);
	// frames of one name nested in one another count once
	drawn.frames.sort((a, b) => a.s - b.s || b.v - a.v);
	let width = 0, end = -1;
	for (const f of drawn.frames)
		if (f.s >= end) { width += f.w; end = f.s + f.v; }
	const share = drawn.full ? 100 * width / drawn.full : NaN;
	check(`${fn}'s width is its share of the folded total (within 1%)`,
	      near(share, expected, 1), `${share.toFixed(3)}% of the width, ` +
	      `${expected.toFixed(3)}% of the folded total`);

	// hover: the details line names the frame, its value and share
	const widest = await page.evaluateHandle((fn) => {
		let best = null;
		for (const g of document.querySelectorAll('g.f')) {
			const t = g.querySelector('title').textContent;
			const r = g.querySelector('rect');
			if (t.slice(0, t.lastIndexOf(' (')) === fn &&
			    (!best || +r.getAttribute('width') > +best.getAttribute('width')))
				best = r;
		}
		return best;
	}, fn);
	const el = widest.asElement();
	if (el) {
		await el.hover();
		const det = await page.$eval('#details', (e) => e.textContent);
		check('hovering a frame shows its name, value and share',
		      det.startsWith(fn + ': ') && /\d+(\.\d+)?% of the total/.test(det), det);

		// click: the frame becomes the full width
		await el.click();
		const after = await page.evaluate((r) => ({
			w: Number(r.getAttribute('width')),
			full: Number(document.querySelector('g.f[data-d="0"] rect').getAttribute('width')),
			unzoom: document.getElementById('unzoom').style.display !== 'none',
		}), el);
		check('a click on the frame zooms to it: its width becomes the full width',
		      Math.abs(after.w - after.full) < 0.01 && after.full > 1000,
		      `${after.w} of ${after.full}`);
		check('zoomed: the reset link is shown', after.unzoom);
		await page.click('#unzoom');
		const back = await page.evaluate((r) => Number(r.getAttribute('width')), el);
		check('reset: the frame has its first width again',
		      Math.abs(back - drawn.frames.reduce((m, f) => Math.max(m, f.w), 0)) < 0.01,
		      `${back}`);
	}

	// search: typed into the box; the matched share is stated
	await page.type('#search', fn);
	const m = await page.evaluate(() => {
		const e = document.getElementById('matched');
		const hl = [...document.querySelectorAll('g.f rect')]
			.filter((r) => r.getAttribute('fill') === 'rgb(230,0,230)').length;
		return { text: e.textContent, hl };
	});
	const said = /: ([0-9.]+)% of the total/.exec(m.text);
	check('the search highlights the matching frames', m.hl >= drawn.frames.length && m.hl > 0,
	      `${m.hl} highlighted`);
	check(`the search states ${fn}'s share (within 1% of the folded one)`,
	      said && near(Number(said[1]), expected, 1), m.text);

	await page.screenshot({ path: shot, fullPage: true });
	check('no JavaScript error on the page', errors.length === 0, errors.join('; '));
	await page.close();
}

// A picture for docs/: the graph as it opens, fn's label readable in it
async function picture(browser, png, file, fn) {
	const tag = path.basename(png);
	const { page, errors } = await open(browser, file);
	const seen = await page.evaluate((fn) => {
		const svg = document.documentElement;
		const height = Number(svg.getAttribute('height'));
		const width = Number(svg.getAttribute('width'));
		let shown = 0, frames = 0;
		for (const g of document.querySelectorAll('g.f')) {
			const t = g.querySelector('title').textContent;
			if (t.slice(0, t.lastIndexOf(' (')) !== fn)
				continue;
			frames++;
			const b = g.querySelector('rect').getBoundingClientRect();
			if (g.querySelector('text').textContent === fn && b.width >= 1 &&
			    b.top >= 0 && b.bottom <= height && b.left >= 0 && b.right <= width)
				shown++;
		}
		return { width, height, frames, shown, script: !!window.flamegraph };
	}, fn);
	check(`${tag}: the page ran its script`, seen.script);
	check(`${tag}: ${fn} is a frame whose label reads in full`, seen.shown > 0,
	      `${seen.frames} frames, ${seen.shown} labelled in full`);
	check(`${tag}: the graph is 1200 px wide and has a height`,
	      seen.width === 1200 && seen.height > 0 && seen.height <= 16384,
	      `${seen.width} x ${seen.height}`);
	if (seen.width > 0 && seen.height > 0) {
		await page.setViewport({ width: seen.width, height: Math.min(seen.height, 16384) });
		await page.screenshot({ path: png, type: 'png',
					clip: { x: 0, y: 0, width: seen.width, height: seen.height } });
	}
	check(`${tag}: no JavaScript error on the page`, errors.length === 0, errors.join('; '));
	await page.close();
}

run(['--disable-gpu'], async (browser) => {
	await interactive(browser);
	if (diffFlag === '--diff')
		await checkDiff(browser);
	for (let i = 0; i + 2 < more.length; i += 3)
		await picture(browser, more[i], more[i + 1], more[i + 2]);
});
