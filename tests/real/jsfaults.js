// node --perf-basic-prof jsfaults.js ROUNDS MB: a JavaScript function with
// known behaviour for tests/real.  Prints its pid, waits for the file named
// by $WL_GO (when set), then ROUNDS times allocates an MB-megabyte typed
// array (fresh zero pages from the kernel) and writes one value a page in
// jsTouchPages: the page faults are taken in that function's JIT code,
// named by /tmp/perf-PID.map.  Prints "done ROUNDS", then waits to be
// killed.
'use strict';
const fs = require('fs');

function jsTouchPages(a) {
	let s = 0;
	for (let i = 0; i < a.length; i += 512)	// 512 doubles: a 4 KiB page
		a[i] = i;
	for (let i = 0; i < a.length; i += 512)
		s += a[i];
	return s;
}

const rounds = +process.argv[2] || 50, mb = +process.argv[3] || 8;
console.log(process.pid);
const go = process.env.WL_GO;
while (go && !fs.existsSync(go))
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
let sum = 0;
for (let r = 0; r < rounds; r++)
	sum += jsTouchPages(new Float64Array(mb * 131072));
console.log('done', sum > 0 ? rounds : 0);
setInterval(() => {}, 1 << 30);	// alive until killed: the tools name its frames while it lives
