# Helpers for the tool tests (sourced by tests/run.sh, one subshell per
# test file).  Each check records one result line: "ok - ..." or
# "not ok - ...", counted by tests/run.sh.
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-$ROOT/build}
WL=$BUILD/workloads
# the tools under test: the top of the tree, or the sanitizer build
BIN=${BIN:-$ROOT}
T=$(mktemp -d /tmp/suite-test.XXXXXX)
WL_PIDS=()

_cleanup() {
	for p in "${WL_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap _cleanup EXIT

pass() { echo "ok - $TEST_FILE: $*"; }
fail() { echo "not ok - $TEST_FILE: $*"; }

# check DESC CMD...: passes when CMD exits 0
check() {
	local d=$1; shift
	if "$@"; then pass "$d"; else fail "$d"; fi
}

# check_rc DESC WANT CMD...: passes when CMD exits with WANT
check_rc() {
	local d=$1 want=$2 rc; shift 2
	"$@" >"$T/rc.out" 2>"$T/rc.err"; rc=$?
	if [ "$rc" = "$want" ]; then pass "$d"
	else fail "$d (exit $rc, want $want)"; sed 's/^/#   /' "$T/rc.err" | head -5; fi
}

# check_eq DESC GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (got '$2', want '$3')"; fi
}

# check_within DESC GOT WANT PCT: |GOT - WANT| <= PCT% of WANT
check_within() {
	if awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= w * p / 100) }'; then
		pass "$1 ($2 vs $3 +-$4%)"
	else
		fail "$1 (got '$2', want $3 +-$4%)"
	fi
}

# check_ge DESC GOT MIN
check_ge() {
	if [ -n "$2" ] && [ "$2" -ge "$3" ] 2>/dev/null; then pass "$1 ($2 >= $3)"; else fail "$1 (got '$2', want >= $3)"; fi
}

# check_grep DESC PATTERN FILE: FILE has a line matching the ERE
check_grep() {
	if grep -Eq -- "$2" "$3"; then pass "$1"; else fail "$1 (no /$2/ in $3)"; head -5 "$3" | sed 's/^/#   /'; fi
}

# check_nogrep DESC PATTERN FILE
check_nogrep() {
	if ! grep -Eq -- "$2" "$3"; then pass "$1"; else fail "$1 (/$2/ found in $3)"; grep -Em3 -- "$2" "$3" | sed 's/^/#   /'; fi
}

# ready ERR PID [ERE]: the tool PID says on ERR that it traces (a line
# matching ERE; by default any tool's "tracing", "watching" or "sampling"
# line), or has exited (300 s at most: loading is slow when the machine is
# busy: this shared machine saw a load average of 30 on 2 CPUs)
ready() {
	local re=${3:-tracing|watching|sampling} i
	for i in $(seq 1 6000); do
		grep -Eqs -- "$re" "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# run_released OUT ERR ERE RELEASE CMD...: runs the tool CMD in the
# background (stdout to OUT, stderr to ERR, its pid in $TOOL_PID); once it
# says ERE (see ready) or has exited, evaluates the shell command RELEASE
# (which lets the workloads go, or stops the tool), then waits for CMD:
# its exit status in $RUN_RC
run_released() {
	local out=$1 err=$2 re=$3 release=$4; shift 4
	# emptied here: the background job's own redirection may come late,
	# after the previous run's "tracing" line has been read
	: >"$err"
	"$@" >"$out" 2>"$err" &
	TOOL_PID=$!
	ready "$err" "$TOOL_PID" "$re"
	eval "$release"
	wait "$TOOL_PID"
	RUN_RC=$?
}

# release_usr1: the release of a workload that waits for SIGUSR1
release_usr1() {
	kill -USR1 "$WL_PID" 2>/dev/null
}

# tool_cmd TOOL: CMD=(how TOOL traces with no other option): schedsilence
# watches $CPU (1 unless set), hitmtop samples the software event (no
# PEBS/IBS here), hotcheck checks the test's shell
tool_cmd() {
	case $1 in
	schedsilence) CMD=("$BIN/schedsilence" -C "${CPU:-1}") ;;
	hitmtop) CMD=(env HITMTOP_TEST_SOFTWARE_EVENT=1 "$BIN/hitmtop") ;;
	hotcheck) CMD=("$BIN/hotcheck" -t $$) ;;	# the test's own shell: a live thread
	*) CMD=("$BIN/$1") ;;
	esac
}

# start_wl NAME ARGS...: starts a workload in the background; its pid
# (printed on its first line) is left in $WL_PID.
start_wl() {
	local name=$1; shift
	start_cmd "$WL/$name" "$@"
}

# start_cmd CMD ARGS...: the same for any command that prints a pid first
# (a workload run through a wrapper that execs it)
start_cmd() {
	local out
	out=$(mktemp "$T/wl.XXXXXX")
	"$@" >"$out" 2>&1 &
	local p=$! i
	WL_PIDS+=("$p")
	# (up to 60 s: starting is slow when the machine is busy)
	for i in $(seq 1 6000); do
		[ -s "$out" ] && break
		sleep 0.01
	done
	WL_PID=$(head -1 "$out")
	WL_OUT=$out
}

# wait_line FILE PATTERN: waits (60 s at most: a busy machine) for a line
# matching PATTERN
wait_line() {
	local i
	for i in $(seq 1 6000); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.01
	done
	return 1
}

# wait_wl: waits for every workload started so far
wait_wl() {
	for p in "${WL_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	WL_PIDS=()
}

# sum of the values of folded lines matching PATTERN in FILE
folded_sum() {
	grep -E -- "$1" "$2" | awk '{ s += $NF } END { print s + 0 }'
}

# json_ok FILE: the file is one valid JSON document
json_ok() {
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>"$T/json.err"
}

# jq-like: python3 expression over the document d
json_get() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# xml_ok FILE: FILE parses as XML (a flame graph: --svg, hotcheck -o)
xml_ok() {
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1" 2>"$T/xml.err"
}

# png_size FILE...: "WIDTH HEIGHT" of each PNG file, from its IHDR chunk,
# one line each, in order; "-" for a file that is not one (exit 1): the
# signature, then IHDR first, 13 bytes long, its CRC right, width and
# height not 0; IEND last (a file cut short is no PNG).  One python3 for
# them all: its start is slow on a busy machine
png_size() {
	python3 - "$@" <<'EOF'
import struct, sys, zlib
bad = 0
for name in sys.argv[1:]:
    try:
        b = open(name, 'rb').read()
    except OSError:
        b = b''
    ok = len(b) >= 57 and b[:8] == b'\x89PNG\r\n\x1a\n' and b[8:16] == b'\0\0\0\x0dIHDR' \
        and b[-12:] == b'\0\0\0\0IEND\xaeB`\x82' \
        and struct.unpack('>I', b[29:33])[0] == zlib.crc32(b[12:29])
    w, h = struct.unpack('>II', b[16:24]) if ok else (0, 0)
    if ok and w and h:
        print(w, h)
    else:
        print('-')
        bad = 1
sys.exit(bad)
EOF
}

# png_ok FILE...: each FILE is a PNG (png_size)
png_ok() {
	png_size "$@" >/dev/null
}

# svg_get FILE EXPR: python3 expression over the frames f, a list of
# (name, kind, value, depth) from the file's <g class="f"> elements; fa
# the same frames as (name, attributes of the <g>, with the <rect>'s
# fill), d the document, ns its namespace
svg_get() {
	python3 - "$1" "$2" <<'EOF'
import sys, xml.etree.ElementTree as E
ns = '{http://www.w3.org/2000/svg}'
d = E.parse(sys.argv[1]).getroot()
f = []
fa = []
for g in d.iter(ns + 'g'):
    if not (g.get('class') or '').startswith('f '):
        continue
    t = g.find(ns + 'title').text
    f.append((t[:t.rindex(' (')], int(g.get('class').split()[1][1:]), int(g.get('data-v')), int(g.get('data-d'))))
    fa.append((f[-1][0], dict(g.attrib, fill=g.find(ns + 'rect').get('fill'))))
print(eval(sys.argv[2]))
EOF
}

# trace_get TRACE JSON EXPR: python3 expression over a --trace file and
# the report of the same run (-j): t the trace, o its otherData, ev its
# events but the metadata ("M"), d the report; thread[(pid, tid)] and
# process[pid] the tracks' names, track(NAME) the (pid, tid) of the
# thread track NAME (None unless exactly one), on(NAME) its events,
# shown(EVENTS) how many of their slices speedscope shows: those of a
# length above 0, but one that begins where one of the same name and args
# ends, which speedscope makes one with it (it opens the second before it
# closes the first, then closes the second at once: a made-up trace shows
# it; test_schedsilence once counted 1865 of 1866 under load)
trace_get() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2]))
o = t['otherData']; ev = [e for e in t['traceEvents'] if e['ph'] != 'M']
meta = [e for e in t['traceEvents'] if e['ph'] == 'M']
thread = {(e['pid'], e['tid']): e['args']['name'] for e in meta if e['name'] == 'thread_name'}
process = {e['pid']: e['args']['name'] for e in meta if e['name'] == 'process_name'}
def track(name):
    k = [k for k, v in thread.items() if v == name]
    return k[0] if len(k) == 1 else None
def on(name):
    return [e for e in ev if (e['pid'], e['tid']) == track(name)]
def shown(evs):
    x = [e for e in evs if e['ph'] == 'X' and e['dur'] > 0]
    ends = {}
    for e in x:
        k = (e['pid'], e['tid'], e['name'], json.dumps(e.get('args'), sort_keys=True), e['ts'] + e['dur'])
        ends[k] = ends.get(k, 0) + 1
    joined = 0
    for e in x:
        k = (e['pid'], e['tid'], e['name'], json.dumps(e.get('args'), sort_keys=True), e['ts'])
        if ends.get(k):
            ends[k] -= 1
            joined += 1
    return len(x) - joined
def median(v):
    v = sorted(v)
    return v[len(v) // 2] if v else None
print(eval(sys.argv[3]))
PY
}

# BPF objects of a tool left behind (programs whose name starts with it)
bpf_prog_count() {
	bpftool prog show 2>/dev/null | grep -c "$1" || true
}

# bpf_ids_of PID: the BPF programs, maps and links a process holds, one
# "prog N" / "map N" / "link N" per line (from /proc/PID/fdinfo)
bpf_ids_of() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '
		/^prog_id:/ { print "prog " $2 } /^map_id:/ { print "map " $2 }
		/^link_id:/ { print "link " $2 }' | sort -u
}

# bpf_ids_gone FILE: none of the objects listed (as by bpf_ids_of) exists.
# The kernel frees some (perf-event programs, maps behind them) after an
# RCU grace period, not at close: poll for up to 5 s.
bpf_ids_gone() {
	local kind id i left
	[ -s "$1" ] || return 1
	for i in $(seq 1 50); do
		left=0
		while read -r kind id; do
			bpftool "$kind" show id "$id" >/dev/null 2>&1 && left=1 && break
		done <"$1"
		[ "$left" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}

# check_clean_exit DESC SIGNAL CMD...: starts CMD, records its BPF objects
# once it says it is tracing, stops it with SIGNAL (or lets -d expire when
# SIGNAL is "none"), and checks it exited 0 and every object went away
check_clean_exit() {
	local d=$1 sig=$2; shift 2
	check_clean_exit_rc "$d" "$sig" 0 "$@"
}

# check_clean_exit_rc DESC SIGNAL WANT CMD...: the same, for a tool whose
# normal exit status is WANT (schedsilence: 1 when not silent); SIGNAL
# "go" releases the workload held by start_wl_held instead (target exit)
check_clean_exit_rc() {
	local d=$1 sig=$2 want=$3 rc; shift 3
	run_released "$T/ce.out" "$T/ce.err" 'tracing|watching|sampling' '_clean_exit_stop "$sig"' "$@"
	rc=$RUN_RC
	if [ ! -s "$T/ce.ids" ]; then fail "$d (no BPF object seen while it ran, exit $rc)"
		head -3 "$T/ce.err" | sed 's/^/#   /'
	elif [ "$rc" != "$want" ]; then fail "$d (exit $rc, want $want)"
		head -3 "$T/ce.err" | sed 's/^/#   /'
	elif bpf_ids_gone "$T/ce.ids"; then pass "$d ($(wc -l <"$T/ce.ids") objects gone)"
	else fail "$d (objects left: $(tr '\n' ' ' <"$T/ce.ids"))"; fi
}

# _clean_exit_stop SIGNAL: records the BPF objects of the tool $TOOL_PID,
# then ends it as check_clean_exit_rc's SIGNAL says
_clean_exit_stop() {
	bpf_ids_of "$TOOL_PID" >"$T/ce.ids"
	case $1 in
	none) ;;
	go) touch "$WL_GOFILE" ;;	# the held workload goes, and ends
	*) kill -"$1" "$TOOL_PID" ;;
	esac
}

# start_wl_held NAME ARGS...: like start_wl, but the workload waits (see
# wl_wait_go) until the tool is attached: run it with run_held
start_wl_held() {
	WL_GOFILE=$(mktemp -u "$T/go.XXXXXX")
	WL_GO=$WL_GOFILE start_wl "$@"
}

# run_held OUT ERR CMD...: runs the tool CMD, releases the held workload
# once CMD says it is tracing, and waits for CMD and the workloads
run_held() {
	local out=$1 err=$2; shift 2
	run_released "$out" "$err" 'tracing|watching' 'touch "$WL_GOFILE"' "$@"
	touch "$WL_GOFILE"
	wait_wl
	return $RUN_RC
}

# check_bad_inputs CMD ARGS...: each ARGS (words as the shell splits them)
# makes CMD exit 2 with a message on stderr
check_bad_inputs() {
	local cmd=$1 args; shift
	for args in "$@"; do
		eval "set -- $args"
		check_rc "bad input '$args' exits 2" 2 "$cmd" "$@"
		[ -s "$T/rc.err" ] || fail "bad input '$args' says nothing on stderr"
	done
}

# check_no_btf CMD...: without kernel BTF, CMD exits 3 and names it
check_no_btf() {
	check_rc "no kernel BTF exits 3" 3 env SUITE_BTF_PATH=/nonexistent "$@"
	check_grep "the missing BTF is named" 'BTF' "$T/rc.err"
}

# folded_user_first FILE: in every folded line the user frames come before
# the kernel ones (_[k])
folded_user_first() {
	awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";"); k = 0
		for (i = 2; i <= n; i++) { if (f[i] ~ /_\[k\]$/) k = 1; else if (k) exit 1 } }' "$1"
}

# folded_well_formed FILE: every line is "stack value", each stack once
folded_well_formed() {
	awk 'NF < 2 || $NF !~ /^[0-9]+$/ { exit 1 } { sub(/ [0-9]+$/, ""); if (seen[$0]++) exit 1 }' "$1"
}

# wk_launch CMD...: starts the wakers workload CMD GO_FILE, which prints
# its pid and its target's tid, then waits for GO_FILE; sets WK_PID,
# WK_TID, WK_OUT, WK_GO (test_wakers, tests/kernels/checks.sh)
GO_N=0
wk_launch() {
	local i
	GO_N=$((GO_N + 1))
	WK_GO=$T/go.$GO_N
	WK_OUT=$T/wl.$GO_N
	"$@" "$WK_GO" >"$WK_OUT" 2>&1 &
	WL_PIDS+=("$!")
	for i in $(seq 1 500); do
		[ "$(wc -l <"$WK_OUT")" -ge 2 ] && break
		sleep 0.01
	done
	WK_PID=$(sed -n 1p "$WK_OUT")
	WK_TID=$(sed -n 2p "$WK_OUT")
}

# trace_browser OUTDIR NAME=TRACE[=PNG] ...: the --trace files opened in
# speedscope (npm) in Debian's chromium, one launch for all
# (tests/browser/trace.js): its TAP lines, and what speedscope parsed of
# each in OUTDIR/NAME.speedscope.json.  Without chromium or the npm
# packages (scripts/deps.sh --test installs both) it says "skip" and
# returns 1.
trace_browser() {
	local out=$1 node_dir=$ROOT/tests/browser; shift
	# under the sanitizers (make test-asan) the browser reads the same
	# trace as in the plain run, and no sanitized code runs in it: left
	# to the plain run (make test)
	if [ -n "${SANITIZER_LOGS:-}" ]; then
		echo "# $TEST_FILE: the trace in a browser is checked by make test, not under the sanitizers"
		return 1
	fi
	if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ] || [ ! -d "$node_dir/node_modules/puppeteer-core" ] ||
	   [ ! -d "$node_dir/node_modules/speedscope/dist/release" ]; then
		echo "skip - $TEST_FILE: the trace in a browser needs chromium, puppeteer-core and speedscope (scripts/deps.sh --test)"
		return 1
	fi
	node "$node_dir/trace.js" "$out" "$@" >"$T/trace_browser.out" 2>&1
	cat "$T/trace_browser.out"
	grep -q '^ok - .*: no error or warning from the page' "$T/trace_browser.out"
}

# speedscope_get FILE EXPR: python3 expression over what speedscope
# parsed and saved (trace_browser): p the profiles by name; slices(P) the
# slices of profile P, each (name, args, start, end) in us from the
# profile's first event, in the order speedscope opened them
speedscope_get() {
	python3 - "$1" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
frames = s['shared']['frames']
p = {q['name']: q for q in s['profiles']}
def split(key):
    # speedscope names a frame "NAME ARGS_JSON"
    i = key.find(' {')
    while i >= 0:
        try:
            return key[:i], json.loads(key[i + 1:])
        except ValueError:
            i = key.find(' {', i + 1)
    return key, {}
def slices(q):
    out, open_ = [], []
    for e in q['events']:
        if e['type'] == 'O':
            open_.append(e)
        else:
            o = open_.pop()
            out.append((o['frame'], o['at'], e['at']))
    out.sort(key=lambda x: x[1])
    return [split(frames[f]['name']) + (a, b) for f, a, b in out]
def median(v):
    v = sorted(v)
    return v[len(v) // 2] if v else None
print(eval(sys.argv[2]))
PY
}
