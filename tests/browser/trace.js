// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// Opens --trace files in a real consumer of the Trace Event Format:
// speedscope's built app (npm, tests/browser/node_modules/speedscope),
// in Debian's chromium (puppeteer-core, headless), one launch for all:
//   node trace.js OUTDIR NAME=TRACE[=SCREENSHOT] ...
// Each trace is opened the way a reader opens one ("Browse", the file
// chooser), then saved back with Ctrl+S: speedscope writes what it parsed
// (its profiles, the slices as open and close events of its frames) to
// OUTDIR/NAME.speedscope.json, for the test to count the slices in.  A
// page error, an error or warning on the console (speedscope warns of
// slices that do not nest), an alert, the "Something went wrong" screen,
// or no save, each fails.  Each check is one TAP line.  speedscope keeps
// no slice of zero length, and shows two slices of the same name and args
// that touch as one: the tests count as it does (tests/lib.sh, shown).
'use strict';
const fs = require('fs');
const path = require('path');
const { check, run } = require('./harness');

const [outdir, ...jobs] = process.argv.slice(2);
const app = path.join(__dirname, 'node_modules/speedscope/dist/release/index.html');

// the file speedscope saves into dir (its name is the trace's): the
// first complete one that is not in before
async function saved(dir, before) {
	for (let i = 0; i < 1200; i++) {
		const f = fs.readdirSync(dir).filter((n) => !before.has(n) &&
						    n.endsWith('.speedscope.json'));
		if (f.length)
			return path.join(dir, f[0]);
		await new Promise((r) => setTimeout(r, 50));
	}
	return null;
}

async function one(browser, job) {
	const [tag, trace, shot] = job.split('=');
	const page = await browser.newPage();
	const problems = [];
	page.on('pageerror', (e) => problems.push(`page error: ${e}`));
	page.on('console', (m) => {
		if (m.type() === 'error' || m.type() === 'warn' || m.type() === 'warning')
			problems.push(`console ${m.type()}: ${m.text()}`);
		else if (/^Failed to load format/.test(m.text()))
			problems.push(m.text());
	});
	page.on('dialog', async (d) => { problems.push(`alert: ${d.message()}`); await d.dismiss(); });
	const dl = fs.mkdtempSync(path.join(outdir, 'dl-'));
	const cdp = await page.createCDPSession();
	await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dl });
	await page.setViewport({ width: 1200, height: 400 });
	await page.goto('file://' + app, { waitUntil: 'load' });

	// the landing page's "Browse", as a reader opens a file: the chooser
	// gets the trace
	await page.bringToFront();
	const browse = await page.waitForSelector('::-p-text(Browse)');
	const [chooser] = await Promise.all([page.waitForFileChooser(), browse.click()]);
	await chooser.accept([path.resolve(trace)]);
	// loaded: the title names the profile, or the error screen shows
	await page.waitForFunction(() => / - speedscope$/.test(document.title) ||
				   /Something went wrong/.test(document.body.innerText),
				   { timeout: 120000 });
	const broken = await page.evaluate(() => /Something went wrong/.test(document.body.innerText));
	check(`${tag}: speedscope imported ${path.basename(trace)}`, !broken, broken ? 'its error screen' : '');
	// two frames: the views are drawn
	await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
	if (shot)
		await page.screenshot({ path: shot });

	// Ctrl+S: speedscope saves what it parsed
	const before = new Set(fs.readdirSync(dl));
	await page.keyboard.down('Control');
	await page.keyboard.press('s');
	await page.keyboard.up('Control');
	const file = await saved(dl, before);
	check(`${tag}: speedscope saved the profiles it parsed`, file !== null);
	if (file) {
		// parsed once more: a save still being written is not whole
		let doc = null;
		for (let i = 0; i < 200 && !doc; i++) {
			try { doc = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) {
				await new Promise((r) => setTimeout(r, 50));
			}
		}
		if (doc)
			fs.writeFileSync(path.join(outdir, `${tag}.speedscope.json`), JSON.stringify(doc));
		check(`${tag}: the save is speedscope's file format`, doc && Array.isArray(doc.profiles) &&
		      doc.shared && Array.isArray(doc.shared.frames), doc ? doc.exporter : 'not JSON');
	}
	check(`${tag}: no error or warning from the page`, problems.length === 0,
	      problems.length ? `${problems.length}, the first: ` +
	      problems.slice(0, 3).join('; ').slice(0, 1500) : '');
	fs.rmSync(dl, { recursive: true, force: true });
	await page.close();
}

// speedscope draws with WebGL: software rendering, no GPU
run(['--use-angle=swiftshader', '--enable-unsafe-swiftshader'], async (browser) => {
	for (const job of jobs)
		await one(browser, job);
});
