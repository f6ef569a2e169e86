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

# ready ERR PID: the tool PID says on ERR that it traces (60 s at most:
# loading is slow when the machine is busy), or has exited
ready() {
	local i
	for i in $(seq 1 600); do
		grep -Eq 'tracing|watching|sampling' "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# tool_cmd TOOL: CMD=(how TOOL traces with no other option): schedsilence
# watches $CPU (1 unless set), hitmtop samples the software event (no
# PEBS/IBS here)
tool_cmd() {
	case $1 in
	schedsilence) CMD=("$BIN/schedsilence" -C "${CPU:-1}") ;;
	hitmtop) CMD=(env HITMTOP_TEST_SOFTWARE_EVENT=1 "$BIN/hitmtop") ;;
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
	# (up to 5 s: starting is slow when the machine is busy)
	for i in $(seq 1 500); do
		[ -s "$out" ] && break
		sleep 0.01
	done
	WL_PID=$(head -1 "$out")
	WL_OUT=$out
}

# wait_line FILE PATTERN: waits (10 s at most) for a line matching PATTERN
wait_line() {
	local i
	for i in $(seq 1 1000); do
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
	local d=$1 sig=$2 want=$3 p rc i; shift 3
	# emptied here: the background job's own redirection may come late,
	# after the previous run's "tracing" line has been read
	: >"$T/ce.err"
	"$@" >"$T/ce.out" 2>"$T/ce.err" &
	p=$!
	# (up to 60 s: loading is slow when the machine is busy)
	for i in $(seq 1 600); do
		grep -Eq 'tracing|watching|sampling' "$T/ce.err" && break
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	bpf_ids_of "$p" >"$T/ce.ids"
	case $sig in
	none) ;;
	go) touch "$WL_GOFILE" ;;	# the held workload goes, and ends
	*) kill -"$sig" "$p" ;;
	esac
	wait "$p"; rc=$?
	if [ ! -s "$T/ce.ids" ]; then fail "$d (no BPF object seen while it ran, exit $rc)"
		head -3 "$T/ce.err" | sed 's/^/#   /'
	elif [ "$rc" != "$want" ]; then fail "$d (exit $rc, want $want)"
		head -3 "$T/ce.err" | sed 's/^/#   /'
	elif bpf_ids_gone "$T/ce.ids"; then pass "$d ($(wc -l <"$T/ce.ids") objects gone)"
	else fail "$d (objects left: $(tr '\n' ' ' <"$T/ce.ids"))"; fi
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
	local out=$1 err=$2 p; shift 2
	: >"$err"	# (see check_clean_exit_rc)
	"$@" >"$out" 2>"$err" &
	p=$!
	wait_line "$err" 'tracing|watching' && touch "$WL_GOFILE"
	wait "$p"
	RUN_RC=$?
	touch "$WL_GOFILE"
	wait_wl
	return $RUN_RC
}
