// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// Loads a --svg flame graph in Debian's chromium (puppeteer-core, headless)
// and checks it as a reader would use it:
//   node flamesvg.js SVG FUNCTION EXPECTED_PCT SCREENSHOT
// FUNCTION's frames must hold EXPECTED_PCT of the width (within 1% of it),
// a click on its widest frame makes that frame the full width, the search
// finds it and states its share, hovering names it, and the page raises no
// JavaScript error.  Each check is one TAP line ("ok - ..." / "not ok - ...").
'use strict';
const path = require('path');
const puppeteer = require('puppeteer-core');

const [svg, fn, expectArg, shot] = process.argv.slice(2);
const expected = Number(expectArg);
const name = process.env.TEST_FILE || 'flamesvg.js';
let failed = 0;

function check(desc, ok, detail) {
	if (!ok)
		failed++;
	console.log(`${ok ? 'ok' : 'not ok'} - ${name}: ${desc}${detail ? ` (${detail})` : ''}`);
}

function near(got, want, pct) {
	return Number.isFinite(got) && Math.abs(got - want) <= Math.abs(want) * pct / 100;
}

(async () => {
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'],
	});
	try {
		const page = await browser.newPage();
		const errors = [];
		page.on('pageerror', (e) => errors.push(String(e)));
		page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
		await page.setViewport({ width: 1200, height: 900 });
		await page.goto('file://' + path.resolve(svg), { waitUntil: 'load' });

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
	} finally {
		await browser.close();
	}
	process.exit(failed ? 1 : 0);
})().catch((e) => {
	console.log(`not ok - ${name}: the browser check ran to its end (${e && e.stack || e})`);
	process.exit(1);
});
