# --svg FILE: the flame graph written beside the report, checked as
# written (XML, frames, escaping) and in a browser (Debian's chromium
# driven by puppeteer-core: scripts/deps.sh --test installs both).
OC=$BIN/offcputime
export WL_TMP=$T	# where evil_names writes its patched copy
# the screenshots outlive $T: artefacts of the run; picture-TOOL.png, one
# per tool, is what scripts/pictures.sh copies into docs/img/
ART=$BUILD/artefacts
mkdir -p "$ART"
rm -f "$ART"/picture-*.png

# 1. bad destinations: exit 2, named, before anything is attached
check_bad_inputs "$OC" "--svg /nonexistent/dir/x.svg -d 1" "--svg '' -d 1" "--svg - -d 1"
check_rc "an unwritable --svg exits 2" 2 "$OC" --svg /nonexistent/dir/x.svg -d 1
check_grep "the unwritable --svg is named with the reason" \
	'--svg: cannot write /nonexistent/dir/x.svg: No such file or directory' "$T/rc.err"

# 2. 20 sleeps of 50 ms in offcpu_block_here (state S) while the main
#    thread waits in pthread_join (S too): the folded report on stdout and
#    the flame graph of the same entries.  Counts, not times: whatever the
#    load, the widths are the folded values' shares.
start_wl_held offcpu_blocker 20 50 0
run_held "$T/f1" "$T/e1" "$OC" -p "$WL_PID" --state S -f --svg "$T/a.svg" -d 20
check_eq "--svg with -f exits 0" "$RUN_RC" 0
check_grep "the folded report is still printed" ';offcpu_block_here;.* [0-9]+$' "$T/f1"
check "the SVG is well-formed XML" xml_ok "$T/a.svg"
check_grep "the SVG is one self-contained file: its script inline" '<script type="text/javascript"><!\[CDATA\[' "$T/a.svg"
check_nogrep "nothing is fetched from elsewhere" '(href|src)=|@import|url\(' "$T/a.svg"
check_grep "the title names the tool, the target, the window" \
	"<text id=\"title\"[^>]*>offcputime: off-CPU time of pid $WL_PID, [0-9.]+ s from [0-9-]+ [0-9:]+ UTC</text>" "$T/a.svg"
total=$(awk '{ s += $NF } END { print s }' "$T/f1")
check_eq "the root frame holds the folded total" "$(svg_get "$T/a.svg" "[v for n, k, v, d in f if d == 0]")" "[$total]"
check_grep "the unit is said" "Total $total us" "$T/a.svg"
here=$(folded_sum ';offcpu_block_here;' "$T/f1")
check_eq "offcpu_block_here's frame holds its folded value" \
	"$(svg_get "$T/a.svg" "sum(v for n, k, v, d in f if n == 'offcpu_block_here')")" "$here"
check_eq "it is a user frame, its kernel frames kernel ones" \
	"$(svg_get "$T/a.svg" "(sorted(set(k for n, k, v, d in f if n == 'offcpu_block_here')), 3 in set(k for n, k, v, d in f if n.startswith('hrtimer_nanosleep')))")" \
	"([2], True)"
check_eq "the threads are the frames above the root" \
	"$(svg_get "$T/a.svg" "sorted(set(n for n, k, v, d in f if d == 1))")" "['ocpu_blocker', 'ocpu_main']"

share=$(awk -v h="$here" -v t="$total" 'BEGIN { printf "%.6f", 100 * h / t }')

# 3. (in the browser, below: every graph in one launch of chromium)
# 4. --diff with --svg: a differential flame graph.  The blocking moved:
#    section 2's folded output is the earlier run (20 sleeps of 50 ms in
#    offcpu_block_here, state S); now 3 vfork waits of 20 ms in
#    offcpu_vfork_wait (state D).  vfork's frames were not there (before
#    0: grew, red); blocker's were (before: the file's value, now 3 short
#    waits: shrank, blue); the sleeps' stacks are gone (no width, counted).
start_wl_held offcpu_blocker 3 20 0 vfork
run_held "$T/d.out" "$T/d.err" "$OC" -p "$WL_PID" --diff "$T/f1" --svg "$T/d.svg" -d 20
check_eq "--diff --svg exits 0" "$RUN_RC" 0
check "--diff: the SVG is well-formed XML" xml_ok "$T/d.svg"
# the plain report of the same run: both stacks, with before and after
check_grep "--diff: the plain report says what it is set against" \
	"^against $T/f1: $total us before, [0-9]+ us now" "$T/d.out"
check_eq "--diff: the plain report lists the sleeps' stacks as shrunk to 0, with before and after" \
	"$(awk '/^  shrank most/ { s = 1; next } /^  [a-z]/ { s = 0 } s && $0 ~ /;offcpu_block_here;/ { c += $1; b += $2; a += $3 } END { print c, b, a }' "$T/d.out")" \
	"-$here $here 0"
check_grep "--diff: the plain report lists the vfork wait as grown from 0" \
	'^ +\+[0-9]+ +0 +[0-9]+  ocpu_blocker;start_thread;blocker;vfork;' "$T/d.out"
now=$(sed -nE "s/^against .*: [0-9]+ us before, ([0-9]+) us now.*/\1/p" "$T/d.out")
# stacks gone: the shrank rows with nothing now (all of them listed: at
# most 10 shrank)
gone=$(awk '/ stacks grew, / { n = $(NF - 4) } /^  shrank most/ { s = 1; next } /^  [a-z]/ { s = 0 }
	s && $3 == 0 && $1 ~ /^-/ { c++; b += $2 } END { print (n <= 10 ? c + 0 " " b + 0 : "more than 10 shrank") }' "$T/d.out")
check_grep "--diff: the title says what the run is set against" \
	"<text id=\"title\"[^>]*>offcputime: off-CPU time of pid $WL_PID, [0-9.]+ s from [0-9-]+ [0-9:]+ UTC, against $T/f1</text>" "$T/d.svg"
check_eq "--diff: the root holds this run's total now, the file's before" \
	"$(svg_get "$T/d.svg" "[(int(a['data-v']), int(a['data-b'])) for n, a in fa if a['data-d'] == '0']")" "[($now, $total)]"
check_eq "--diff: vfork grew from 0 (red), by this run's value in it" \
	"$(svg_get "$T/d.svg" "[(a['class'].split()[2], a['data-b'], a['fill'].startswith('hsl(0,80%,'), int(a['data-v']) > 0) for n, a in fa if n == 'vfork']")" \
	"[('grew', '0', True, True)]"
check_eq "--diff: blocker shrank (blue) from the file's value in it" \
	"$(svg_get "$T/d.svg" "[(a['class'].split()[2], int(a['data-b']), a['fill'].startswith('hsl(220,80%,')) for n, a in fa if n == 'blocker']")" \
	"[('shrank', $(folded_sum ';blocker;' "$T/f1"), True)]"
check_eq "--diff: the sleeps' frames are gone: not drawn, counted with their time before" \
	"$(svg_get "$T/d.svg" "([n for n, a in fa if n == 'offcpu_block_here'], [n.get('data-gone') + ' ' + n.get('data-gone-before') for n in d.iter(ns + 'text') if n.get('id') == 'diff-note'])")" \
	"([], ['$gone'])"
check_grep "--diff: the SVG says so in words" "[0-9]+ stacks? gone \(only before, no width now\): ${gone#* } us before" "$T/d.svg"
check_ge "--diff: the sleeps' time is in the stacks gone" "${gone#* }" "$here"
# every frame's fill follows the rule (flamesvg.h): the lightness 90 -
# round(40 * |change| / the largest |change|), red grew, blue shrank
check_eq "--diff: each frame's colour is its change against the largest, the legend's scale the same" \
	"$(svg_get "$T/d.svg" "(lambda c, m: (m == int([g for g in d.iter(ns + 'g') if g.get('id') == 'diff-legend'][0].get('data-max')), [n for n, a in fa if a['fill'] != ('hsl(0,0%,90%)' if not c(a) else 'hsl(%d,80%%,%d%%)' % (0 if c(a) > 0 else 220, 90 - (80 * abs(c(a)) + m) // (2 * m)))]))(lambda a: int(a['data-v']) - int(a['data-b']), max(abs(int(a['data-v']) - int(a['data-b'])) for n, a in fa))")" \
	"(True, [])"

# 5. hostile names: evil_names' comm and function hold ESC and a newline;
#    in the SVG they are escaped (\xNN) and the file is still XML
start_wl_held evil_names sleep 5 20	# prints "PID WORK_TID"
run_held "$T/f4" "$T/e4" "$OC" -p "${WL_PID%% *}" --state S --svg "$T/evil.svg" -d 20
check "with hostile names the SVG is well-formed XML" xml_ok "$T/evil.svg"
check_grep "a hostile function name is escaped" '<title>evil\\x1b\[31m\\x0ablock \(' "$T/evil.svg"
check_grep "a hostile comm is escaped" '<title>ev\\x1b\[31m\\x0awork \(' "$T/evil.svg"
check_nogrep "no raw ESC byte in the SVG" $'\x1b' "$T/evil.svg"
check_grep "the plain report is still printed" 'us in [0-9]+ interval' "$T/f4"

# 6. wakers: wakers_target wakes its target 200 times from
#    wakers_poke_target; the graph holds the folded values (wakeups)
wk_launch "$WL/wakers_target" futex 200
run_released "$T/f5" "$T/e5" 'tracing wakeups' 'touch "$WK_GO"' \
	"$BIN/wakers" -t "$WK_TID" -f --svg "$T/w.svg" -d 30
wait_wl
check_eq "wakers --svg with -f exits 0" "$RUN_RC" 0
check "wakers: the SVG is well-formed XML" xml_ok "$T/w.svg"
check_grep "wakers: the title names the tool, the target, the window" \
	"<text id=\"title\"[^>]*>wakers: wakeups of tid $WK_TID, [0-9.]+ s from [0-9-]+ [0-9:]+ UTC</text>" "$T/w.svg"
wtotal=$(awk '{ s += $NF } END { print s }' "$T/f5")
check_grep "wakers: the total is the folded one, in wakeups" "Total $wtotal wakeups;" "$T/w.svg"
check_eq "wakers: the root frame holds the folded total" "$(svg_get "$T/w.svg" "[v for n, k, v, d in f if d == 0]")" "[$wtotal]"
check_eq "wakers: wakers_poke_target holds its folded wakeups, a user frame" \
	"$(svg_get "$T/w.svg" "(sum(v for n, k, v, d in f if n == 'wakers_poke_target'), set(k for n, k, v, d in f if n == 'wakers_poke_target'))")" \
	"($(folded_sum ';wakers_poke_target;' "$T/f5"), {2})"
check_ge "wakers: the 200 wakeups are there" "$(folded_sum ';wakers_poke_target;' "$T/f5")" 200
# --time: the widths are the microseconds blocked
wk_launch "$WL/wakers_target" futex 20
run_released "$T/f6" "$T/e6" 'tracing wakeups' 'touch "$WK_GO"' \
	"$BIN/wakers" -t "$WK_TID" --time --svg "$T/wt.svg" -d 30
wait_wl
check_eq "wakers --time --svg (no -f) exits 0" "$RUN_RC" 0
check_grep "wakers --time: the title says time blocked" \
	">wakers: time blocked before the wakeups of tid $WK_TID, " "$T/wt.svg"
check_grep "wakers --time: the unit is microseconds" ">Total [0-9]+ us;" "$T/wt.svg"
check_grep "wakers --svg: the plain report is still printed" 'wakers_poke_target' "$T/f6"

# 7. pfwatch: pf_toucher touches 2000 fresh pages in pf_touch_fresh_pages
#    (one fault each) once released; the graph holds the folded faults
start_wl pf_toucher 2000 60000	# SIGUSR1 ends its wait; 60 s for a slow start (ASan, a busy machine)
run_released "$T/f7" "$T/e7" 'tracing page faults' release_usr1 \
	"$BIN/pfwatch" -p "$WL_PID" -f --svg "$T/p.svg" -d 30
wait_wl
check_eq "pfwatch --svg with -f exits 0" "$RUN_RC" 0
check "pfwatch: the SVG is well-formed XML" xml_ok "$T/p.svg"
check_grep "pfwatch: the title names the tool, the target, the window" \
	"<text id=\"title\"[^>]*>pfwatch: page faults of pid $WL_PID, [0-9.]+ s from [0-9-]+ [0-9:]+ UTC</text>" "$T/p.svg"
ptotal=$(awk '{ s += $NF } END { print s }' "$T/f7")
check_grep "pfwatch: the total is the folded one, in faults" "Total $ptotal faults;" "$T/p.svg"
pf_here=$(folded_sum ';pf_touch_fresh_pages ' "$T/f7")
check_ge "pfwatch: the 2000 faults are in the folded report" "$pf_here" 2000
check_eq "pfwatch: pf_touch_fresh_pages holds its folded faults, a user frame" \
	"$(svg_get "$T/p.svg" "(sum(v for n, k, v, d in f if n == 'pf_touch_fresh_pages'), set(k for n, k, v, d in f if n == 'pf_touch_fresh_pages'))")" \
	"($pf_here, {2})"
check_rc "pfwatch: an unwritable --svg exits 2" 2 "$BIN/pfwatch" --svg /nonexistent/dir/p.svg -d 1
check_grep "pfwatch: the unwritable --svg is named" '--svg: cannot write /nonexistent/dir/p.svg' "$T/rc.err"

# 8. syswatch --slower-than: syswatch_calls' caller makes 3 nanosleep
#    calls of 20 ms from sw_slow_here once released (and 100 fast getppid);
#    the graph's widths are the slow calls' latencies, as JSON gives them
start_wl syswatch_calls 100 -1 0 3 20
for i in $(seq 1 500); do
	caller=$(grep -lx sw_caller /proc/"$WL_PID"/task/*/comm 2>/dev/null | head -1 | cut -d/ -f5)
	[ -n "$caller" ] && break
	sleep 0.01
done
run_released "$T/j8" "$T/e8" 'tracing syscalls' release_usr1 \
	"$BIN/syswatch" -t "$caller" --slower-than 10000 -j --svg "$T/s.svg" -d 30
wait_wl
check_eq "syswatch --slower-than --svg -j exits 0" "$RUN_RC" 0
check "syswatch: the JSON report is still printed" json_ok "$T/j8"
check "syswatch: the SVG is well-formed XML" xml_ok "$T/s.svg"
check_grep "syswatch: the title says what the widths are" \
	"<text id=\"title\"[^>]*>syswatch: latency of the syscalls slower than 10000 us of tid $caller, [0-9.]+ s from " "$T/s.svg"
slow_us=$(json_get "$T/j8" "sum(c['latency_ns'] // 1000 for c in d['slow_calls'])")
check_eq "syswatch: the 3 slow calls are in the JSON" "$(json_get "$T/j8" "len(d['slow_calls'])")" 3
check_eq "syswatch: the root, nanosleep (a kernel frame) and sw_slow_here (user) hold their latency" \
	"$(svg_get "$T/s.svg" "([v for n, k, v, d in f if d == 0], [(k, v) for n, k, v, d in f if n in ('nanosleep', 'sw_slow_here')])")" \
	"([$slow_us], [(2, $slow_us), (3, $slow_us)])"
check_rc "syswatch: --svg without --slower-than exits 2" 2 "$BIN/syswatch" --svg "$T/x.svg" -d 1
check_grep "syswatch: and says why" '--svg applies to --slower-than only' "$T/rc.err"

# 8. hotcheck's bundle: docs/diagnosis.md's workload (diag_latency, its
#    flusher holding the book lock over a 4 ms journal write, twice in
#    3 s), its hot thread traced with -o; blocks.svg holds the blocks in
#    book_lock_wait.  At the highest priority, in an autogroup of its own
#    (as test_docs runs it): with both CPUs busy, diag_hot must still be
#    asking for the lock while the flusher holds it
WL_GOFILE=$(mktemp -u "$T/go.XXXXXX")
WL_GO=$WL_GOFILE start_cmd nice -n -20 setsid "$WL/diag_latency" 1 3 1 1 3
read -r DPID DHOT DSTATS DFLUSH <"$WL_OUT"
echo -20 >/proc/"$DPID"/autogroup
run_released "$T/h9" "$T/e9" tracing 'touch "$WL_GOFILE"' \
	"$BIN/hotcheck" -t "$DHOT" -C 1 -o "$T/hc" -d 60
wait_wl
check "hotcheck -o: blocks.svg is well-formed XML" xml_ok "$T/hc/blocks.svg"
check_eq "hotcheck -o: blocks.svg holds the two blocks in book_lock_wait" \
	"$(svg_get "$T/hc/blocks.svg" "len([n for n, k, v, d in f if n == 'book_lock_wait']) > 0")" True

# 8b. hitmtop --svg on a replay (no PMU here): the samples hitm_gen
#     builds from a running hitm_sharing (both patterns), as
#     docs/hitmtop.md shows them; the frame of false_pair's second offset
start_wl hitm_sharing both 2000000 60000
for i in $(seq 1 500); do grep -q '^ready' "$WL_OUT" && break; sleep 0.01; done
"$WL/hitm_gen" "$WL_OUT" false:200 true:100 nonhitm:40 heap:20 >"$T/hm.txt"
check_rc "hitmtop --replay --svg exits 0" 0 "$BIN/hitmtop" --replay "$T/hm.txt" --svg "$T/hm.svg"
kill "$WL_PID" 2>/dev/null
wait_wl
check "hitmtop: the SVG is well-formed XML" xml_ok "$T/hm.svg"
check_eq "hitmtop: false_pair's offset +0x8 holds its 400 samples" \
	"$(svg_get "$T/hm.svg" "[v for n, k, v, d in f if n == '+0x8 false_pair+0x8']")" "[400]"

# 9. in Debian's chromium, one launch: offcputime's graph used as a reader
#    would (widths, zoom, search, hover, no error), then each tool's graph
#    as it opens, kept as a picture (picture-TOOL.png, 1200 px wide)
node_dir=$ROOT/tests/browser
if [ ! -x /usr/bin/chromium ] || [ ! -d "$node_dir/node_modules/puppeteer-core" ]; then
	fail "the browser check needs chromium and puppeteer-core (scripts/deps.sh --test)"
else
	node "$node_dir/flamesvg.js" "$T/a.svg" offcpu_block_here "$share" "$ART/flamesvg-offcputime.png" \
		--diff "$T/d.svg" vfork blocker "$ART/flamesvg-diff.png" \
		"$ART/picture-offcputime.png" "$T/a.svg" offcpu_block_here \
		"$ART/picture-wakers.png" "$T/w.svg" wakers_poke_target \
		"$ART/picture-pfwatch.png" "$T/p.svg" pf_touch_fresh_pages \
		"$ART/picture-syswatch.png" "$T/s.svg" sw_slow_here \
		"$ART/picture-hotcheck.png" "$T/hc/blocks.svg" book_lock_wait \
		"$ART/picture-hitmtop.png" "$T/hm.svg" "+0x8 false_pair+0x8" \
		>"$T/browser.out" 2>&1
	cat "$T/browser.out"
	check_grep "the browser check ran (a screenshot kept)" '^ok - .*: no JavaScript error on the page$' "$T/browser.out"
	check_grep "the differential graph's browser checks ran" '^ok - .*diff: no JavaScript error' "$T/browser.out"
	pics="offcputime wakers pfwatch syswatch hotcheck hitmtop"
	png_size "$ART/flamesvg-offcputime.png" "$ART/flamesvg-diff.png" $(for t in $pics; do echo "$ART/picture-$t.png"; done) \
		>"$T/png.out"
	check_eq "the screenshot and the pictures are PNG files, the pictures 1200 px wide" \
		"$(sed 1,2d "$T/png.out" | cut -d' ' -f1 | tr '\n' ' ')$(head -2 "$T/png.out" | cut -d' ' -f1 | tr '\n' ' ')" \
		"1200 1200 1200 1200 1200 1200 1200 1200 "
fi
