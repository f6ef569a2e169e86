# --pprof of offcputime, wakers and pfwatch, read by the real consumer:
# go tool pprof -raw on the profile of a workload whose behaviour is known
# (the workloads and bounds of each tool's own folded tests).
export HOME=$T GOCACHE=$T/gocache

# pp_get FILE EXPR: EXPR (Python) over the profile as go tool pprof -raw
# prints it: types ["off_cpu/nanoseconds", ...], samples [{values, locs,
# labels}], locs {id: (addr, mapping id, function or "")}, maps {id:
# (file, build id)}, duration (s); total(func, i): the sum of value i of
# the samples whose stack holds func; files(func): the mappings' files of
# its locations; label(func, key): the values of label key on those samples
pp_get() {
	go tool pprof -symbolize=none -raw "$1" >"$T/raw.txt" 2>"$T/raw.err" || {
		# nothing on stdout: every check of the value fails
		echo "# go tool pprof failed: $(head -2 "$T/raw.err")" >&2
		return
	}
	python3 - "$T/raw.txt" "$2" <<'EOF'
import re, sys
types, samples, locs, maps, duration = [], [], {}, {}, None
sec = None
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    if line.startswith('Duration:'):
        duration = float(line.split()[1])
    elif line == 'Samples:':
        sec = 'types'
    elif line == 'Locations':
        sec = 'locs'
    elif line == 'Mappings':
        sec = 'maps'
    elif sec == 'types':
        types = line.split()
        sec = 'samples'
    elif sec == 'samples':
        m = re.match(r'^\s*([-0-9 ]+):((?: \d+)*)\s*$', line)
        if m:
            samples.append({'values': [int(v) for v in m.group(1).split()],
                            'locs': [int(v) for v in m.group(2).split()], 'labels': {}})
        elif samples:
            for k, v in re.findall(r'(\w+):\[([^\]]*)\]', line):
                samples[-1]['labels'][k] = v
    elif sec == 'locs':
        m = re.match(r'^\s*(\d+): 0x([0-9a-f]+)(?: M=(\d+))?\s*(.*?)(?: :\d+ s=\d+)?$', line)
        if m:
            locs[int(m.group(1))] = (int(m.group(2), 16), int(m.group(3) or 0), m.group(4).strip())
    elif sec == 'maps':
        m = re.match(r'^(\d+): 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ (\S+) ?(\S*)', line)
        if m:
            maps[int(m.group(1))] = (m.group(2), m.group(3) if m.group(3) != '[FN]' else '')

def holds(s, func):
    return any(locs.get(l, (0, 0, ''))[2] == func for l in s['locs'])

def total(func, i=0):
    return sum(s['values'][i] for s in samples if holds(s, func))

def files(func):
    return ','.join(sorted({maps[locs[l][1]][0] if locs[l][1] else '' for l in locs
                            if locs[l][2] == func}))

def label(func, key):
    return ','.join(sorted({s['labels'].get(key, '') for s in samples if holds(s, func)}))

print(eval(sys.argv[2]))
EOF
}

if ! command -v go >/dev/null; then
	fail "go tool pprof is needed (golang-go, scripts/deps.sh)"
fi

# 1. offcputime: 20 blocks of 50 ms in offcpu_block_here(), the profile
#    and the folded report of the same run.  --state S: the workload's
#    own blocks (a preemption inside offcpu_block_here, on a busy machine,
#    would be one interval more); their time is at least the 20 x 50 ms
#    slept (the kernel never wakes a sleep early) and at most the run's
start_wl_held offcpu_blocker 20 50 0
blocker_pid=$WL_PID
run_held "$T/f1" "$T/e1" "$BIN/offcputime" -p "$WL_PID" --state S -f -d 5 --pprof "$T/o.pb.gz"
check_eq "offcputime: exits 0 with --pprof" "$RUN_RC" 0
check_eq "offcputime: the sample types" "$(pp_get "$T/o.pb.gz" "' '.join(types)")" \
	"off_cpu/nanoseconds intervals/count"
check_eq "offcputime: off-CPU time in offcpu_block_here, from 20 x 50 ms to the run's 5 s" \
	"$(pp_get "$T/o.pb.gz" "20 * 49000000 <= total('offcpu_block_here', 0) <= 5000000000")" True
check_within "offcputime: the same time as the folded report of the run (us)" \
	"$(pp_get "$T/o.pb.gz" "total('offcpu_block_here', 0) // 1000")" \
	"$(folded_sum 'offcpu_block_here' "$T/f1")" 1
check_eq "offcputime: 20 intervals in offcpu_block_here, exactly" \
	"$(pp_get "$T/o.pb.gz" "total('offcpu_block_here', 1)")" 20
check_eq "offcputime: labels pid and comm" \
	"$(pp_get "$T/o.pb.gz" "label('offcpu_block_here', 'pid') + ' ' + label('offcpu_block_here', 'comm')")" \
	"$blocker_pid ocpu_blocker"
check_eq "offcputime: label tid, another thread than the main one" \
	"$(pp_get "$T/o.pb.gz" "int(label('offcpu_block_here', 'tid')) > $blocker_pid")" True
check_eq "offcputime: kernel frames are in the [kernel] mapping" \
	"$(pp_get "$T/o.pb.gz" "files('hrtimer_nanosleep') + ' ' + files('entry_SYSCALL_64_after_hwframe')")" \
	"[kernel] [kernel]"
check_eq "offcputime: user frames in the workload's mapping, with its build id" \
	"$(pp_get "$T/o.pb.gz" "files('offcpu_block_here') == '$WL/offcpu_blocker' and all(len(b) == 40 for f, b in maps.values() if f == '$WL/offcpu_blocker')")" True
check_eq "offcputime: leaf first: the kernel's frame, then the user's" \
	"$(pp_get "$T/o.pb.gz" "[locs[s['locs'][0]][2] for s in samples if holds(s, 'offcpu_block_here')][0] == 'hrtimer_nanosleep' and [locs[l][2] for s in samples if holds(s, 'offcpu_block_here') for l in s['locs']].index('offcpu_block_here') > 0")" True
check_eq "offcputime: the duration of the run" \
	"$(pp_get "$T/o.pb.gz" "0 < duration <= 5.5")" True

# 2. A frame whose symbol is not there (a stripped copy): its address and
#    mapping are kept, without a function, for the consumer to name
cp "$WL/offcpu_blocker" "$T/ob_stripped" && strip "$T/ob_stripped"
WL_GOFILE=$(mktemp -u "$T/go.XXXXXX")
WL_GO=$WL_GOFILE start_cmd "$T/ob_stripped" 10 20 0
run_held "$T/f2" "$T/e2" "$BIN/offcputime" -p "$WL_PID" -d 5 --pprof "$T/s.pb.gz"
check_eq "not named: the stripped frames are in their file's mapping with an address, no function" \
	"$(pp_get "$T/s.pb.gz" "sum(1 for a, m, f in locs.values() if m and maps[m][0] == '$T/ob_stripped' and a and not f) >= 2")" True
# (a stack the kernel could not read, on a busy machine, is said as such:
# "[user stack lost]", not a name given to a frame)
check_eq "not named: none is given a made-up name" \
	"$(pp_get "$T/s.pb.gz" "[f for a, m, f in locs.values() if f.startswith('[') and not f.endswith(' stack lost]')]")" "[]"

# 3. --pprof -: the profile alone on stdout (--state S: the 5 sleeps, not
#    a preemption inside offcpu_block_here on a busy machine)
start_wl_held offcpu_blocker 5 20 0
run_held "$T/o3.pb.gz" "$T/e3" "$BIN/offcputime" -p "$WL_PID" --state S -d 5 --pprof -
check_eq "--pprof -: stdout is the gzipped profile" "$(head -c 2 "$T/o3.pb.gz" | od -An -tx1 | tr -d ' ')" 1f8b
check_eq "--pprof -: 5 intervals in offcpu_block_here, exactly" \
	"$(pp_get "$T/o3.pb.gz" "total('offcpu_block_here', 1)")" 5

# 4. wakers: 200 futex wakeups from wakers_poke_target, with --time
GO_N=0
wk_go_all() { local i; for i in $(seq 1 "$GO_N"); do touch "$T/go.$i"; done; }
GO_N=1
"$WL/wakers_target" futex 200 "$T/go.1" >"$T/wk.out" 2>&1 &
WL_PIDS+=("$!")
for i in $(seq 1 500); do [ "$(wc -l <"$T/wk.out")" -ge 2 ] && break; sleep 0.01; done
wk_pid=$(sed -n 1p "$T/wk.out")
wk_tid=$(sed -n 2p "$T/wk.out")
run_released "$T/w4" "$T/ew4" 'tracing wakeups' wk_go_all "$BIN/wakers" -t "$wk_tid" -d 30 --time --pprof "$T/w.pb.gz"
wait_wl
woken=$(sed -n 's/^woken //p' "$T/wk.out")
check_eq "wakers: the workload woke its target 200 times" "$woken" 200
check_eq "wakers: sample types with --time" "$(pp_get "$T/w.pb.gz" "' '.join(types)")" \
	"wakeups/count blocked/nanoseconds"
# (each counted wakeup woke the target from a real sleep: FUTEX_WAKE said so)
check_eq "wakers: the workload's wakeups from wakers_poke_target, exactly" \
	"$(pp_get "$T/w.pb.gz" "total('wakers_poke_target', 0)")" "$woken"
check_eq "wakers: time blocked is there" "$(pp_get "$T/w.pb.gz" "total('wakers_poke_target', 1) > 0")" True
check_eq "wakers: labels of the waker and the woken" \
	"$(pp_get "$T/w.pb.gz" "' '.join(label('wakers_poke_target', k) for k in ('comm', 'pid', 'target_tid', 'target_comm'))")" \
	"wk_waker $wk_pid $wk_tid wk_target"
check_eq "wakers: try_to_wake_up, the leaf, in [kernel]" \
	"$(pp_get "$T/w.pb.gz" "files('try_to_wake_up') + ' ' + str(all(locs[s['locs'][0]][2] == 'try_to_wake_up' for s in samples))")" \
	"[kernel] True"
check_rc "wakers: --time still needs -f or --pprof" 2 "$BIN/wakers" -d 1 --time

# 5. pfwatch: 400 faults taken in read(2) under pf_touch_fresh_pages
start_wl pf_toucher 400 60000 read
run_released "$T/p5" "$T/ep5" 'tracing page faults' release_usr1 "$BIN/pfwatch" -p "$WL_PID" -d 20 \
	--pprof "$T/p.pb.gz"
wait_wl
check_eq "pfwatch: the sample type" "$(pp_get "$T/p.pb.gz" "' '.join(types)")" "faults/count"
total=$(pp_get "$T/p.pb.gz" "sum(s['values'][0] for s in samples if holds(s, 'pf_touch_fresh_pages') and maps[locs[s['locs'][0]][1]][0] == '[kernel]')")
if [ -n "$total" ] && [ "$total" -ge 400 ] 2>/dev/null && [ "$total" -le 440 ]; then
	pass "pfwatch: kernel-mode faults under pf_touch_fresh_pages ($total in 400..440)"
else
	fail "pfwatch: kernel-mode faults under pf_touch_fresh_pages (got '$total', want 400..440)"
fi
check_eq "pfwatch: the read path's frames are in [kernel]" \
	"$(pp_get "$T/p.pb.gz" "any(files(f) == '[kernel]' for f in ('vfs_read', 'filemap_read'))")" True
check_eq "pfwatch: labels pid and comm" \
	"$(pp_get "$T/p.pb.gz" "label('pf_touch_fresh_pages', 'pid') + ' ' + label('pf_touch_fresh_pages', 'comm')")" \
	"$WL_PID pf_toucher"

# 6. Bad input: each exits 2 with a message before anything is attached
for tool in offcputime wakers pfwatch; do
	for path in /nonexistent/dir/p.pb.gz "$T" ""; do
		"$BIN/$tool" -d 1 --pprof "$path" >"$T/b.out" 2>"$T/b.err"
		rc=$?
		if [ "$rc" = 2 ] && grep -q -E -- '--pprof: (cannot write|empty path)' "$T/b.err" &&
		   ! grep -q -E 'tracing|watching' "$T/b.err"; then
			pass "$tool: --pprof '$path' exits 2 before tracing"
		else
			fail "$tool: --pprof '$path' (exit $rc, want 2 before tracing)"
			sed 's/^/#   /' "$T/b.err" | head -3
		fi
	done
	check_rc "$tool: --pprof - with -f exits 2" 2 "$BIN/$tool" -d 1 -f --pprof -
	check_grep "$tool: --pprof - with -f: said" '--pprof - and -f/--folded both write to stdout' "$T/rc.err"
done

# 7. A profile that cannot be written is said, exit 2
"$BIN/offcputime" -p $$ -d 0.5 --pprof /dev/full >"$T/full.out" 2>"$T/full.err"
rc=$?
check_eq "--pprof /dev/full exits 2" "$rc" 2
check_grep "--pprof /dev/full is said" 'cannot write /dev/full' "$T/full.err"

# 8. hotcheck: the blocks of hot_thread (B nanosleeps in hc_block, once
#    released after the warm-up), the profile and the -j report of one run
B=20
WL_GOFILE=$(mktemp -u "$T/go.XXXXXX")
WL_GO=$WL_GOFILE start_wl hot_thread 1 0 0 $B
for i in $(seq 1 500); do [ "$(wc -l <"$WL_OUT")" -ge 2 ] && break; sleep 0.01; done
run_released "$T/hc.json" "$T/hc.err" 'warm-up is over' 'touch "$WL_GOFILE"' \
	"$BIN/hotcheck" -t "$(sed -n 2p "$WL_OUT")" -d 4 --warmup 0.5 -j --pprof "$T/hc.pb.gz"
kill "$WL_PID" 2>/dev/null; wait_wl
check_eq "hotcheck: exit 1 with --pprof (the CPU-level checks of this machine)" "$RUN_RC" 1
check_eq "hotcheck: the sample types" "$(pp_get "$T/hc.pb.gz" "' '.join(types)")" \
	"off_cpu/nanoseconds blocks/count"
check_eq "hotcheck: every block of the report in hc_block, counted" \
	"$(pp_get "$T/hc.pb.gz" "total('hc_block', 1)")" \
	"$(json_get "$T/hc.json" "len([e for e in d['events'] if e['kind'] == 'block' and ';hc_block;' in e['stack']])")"
check_ge "hotcheck: the blocks are there" "$(pp_get "$T/hc.pb.gz" "total('hc_block', 1)")" 1
check_eq "hotcheck: their time off CPU, to the nanosecond" \
	"$(pp_get "$T/hc.pb.gz" "total('hc_block', 0)")" \
	"$(json_get "$T/hc.json" "sum(e['dur_ns'] for e in d['events'] if e['kind'] == 'block' and ';hc_block;' in e['stack'])")"
check_eq "hotcheck: labelled with the hot thread" "$(pp_get "$T/hc.pb.gz" "label('hc_block', 'comm')")" hc_hot
check_eq "hotcheck: the kernel frames without the scheduler's" \
	"$(pp_get "$T/hc.pb.gz" "sum(1 for l in locs.values() if l[2] in ('__schedule', 'schedule'))")" 0
