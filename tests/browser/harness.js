// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// What a browser check needs: TAP lines, Debian's chromium launched
// headless by puppeteer-core (no browser download), and the run that
// ends with the exit status of the checks.
'use strict';
const puppeteer = require('puppeteer-core');

const name = process.env.TEST_FILE || require('path').basename(process.argv[1] || 'browser');
let failed = 0;

// check(DESC, OK, DETAIL): one TAP line, "ok - ..." or "not ok - ..."
function check(desc, ok, detail) {
	if (!ok)
		failed++;
	console.log(`${ok ? 'ok' : 'not ok'} - ${name}: ${desc}${detail ? ` (${detail})` : ''}`);
}

// run(ARGS, BODY): BODY(browser) in a chromium launched with ARGS more;
// the exit status is 1 when a check failed or BODY threw (said)
function run(args, body) {
	(async () => {
		const browser = await puppeteer.launch({
			executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
			headless: true,
			args: ['--no-sandbox', '--allow-file-access-from-files', ...args],
		});
		try {
			await body(browser);
		} finally {
			await browser.close();
		}
		process.exit(failed ? 1 : 0);
	})().catch((e) => {
		console.log(`not ok - ${name}: the browser check ran to its end (${e && e.stack || e})`);
		process.exit(1);
	});
}

module.exports = { check, run };
