# Helpers of the tests on real software (tests/real/test_*.sh, sourced
# after tests/lib.sh): the packages, tracefs, a process held still at the
# window's ends, and its ground truth from /proc.

# need_cmds PKG CMD...: every CMD is there (scripts/deps.sh --test installs
# PKG); otherwise one "skip" line, counted by tests/run.sh, and the caller
# returns.  A missing command is a skip only when it cannot be installed
# here: as root, scripts/deps.sh --test is tried first.
need_cmds() {
	local pkg=$1 c missing=; shift
	for c in "$@"; do command -v "$c" >/dev/null || missing="$missing $c"; done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" = 0 ] && [ -z "${REAL_TRIED_DEPS:-}" ]; then
		REAL_TRIED_DEPS=1
		"$ROOT/scripts/deps.sh" --test >"$T/deps.out" 2>&1
		missing=
		for c in "$@"; do command -v "$c" >/dev/null || missing="$missing $c"; done
		[ -z "$missing" ] && return 0
	fi
	echo "skip - $TEST_FILE: not installed and could not be installed:$missing (Debian's $pkg; scripts/deps.sh --test)"
	return 1
}

# tracefs_mounted: /sys/kernel/tracing is there (libbpf-tools' syscount
# attaches its tracepoints through it): mounted here when it is not
tracefs_mounted() {
	[ -e /sys/kernel/tracing/events ] && return 0
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -e /sys/kernel/tracing/events ]
}

# switches PID [voluntary|nonvoluntary]: the sum over the threads of PID
# of their switches (both kinds unless one is named), from
# /proc/PID/task/*/status
switches() {
	cat /proc/"$1"/task/*/status 2>/dev/null | awk -v k="${2:-}" '
		/^(non)?voluntary_ctxt_switches:/ { if (k == "" || $1 == k "_ctxt_switches:") s += $2 }
		END { print s + 0 }'
}

# hold PID: stops PID (SIGSTOP) and waits until every thread of it is
# stopped (state T): from then on it makes no switch, syscall or fault
# until release.  Every tool's window is bracketed this way, so that
# each tool and the ground truth count exactly the same events: those of
# the threads between the release and the next hold.
hold() {
	local i
	kill -STOP "$1"
	for i in $(seq 1 1000); do
		awk '{ sub(/^.*\) /, ""); if ($1 != "T") bad = 1 } END { exit bad }' \
			/proc/"$1"/task/*/stat 2>/dev/null && return 0
		sleep 0.01
	done
	return 1
}
release() { kill -CONT "$1"; }

# start_bg NAME READY_ERE CMD...: starts CMD in the background (stdout to
# $T/NAME.out, stderr to $T/NAME.err) and waits until its stderr or stdout
# says READY_ERE (60 s at most: loading is slow on a busy machine); its
# pid in BG_PID.  Returns 1 when it exited first.
start_bg() {
	local name=$1 re=$2 i; shift 2
	: >"$T/$name.out"; : >"$T/$name.err"
	"$@" >"$T/$name.out" 2>"$T/$name.err" &
	BG_PID=$!
	for i in $(seq 1 1200); do
		grep -Eqs -- "$re" "$T/$name.err" "$T/$name.out" && return 0
		kill -0 "$BG_PID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# stop_bg PID: SIGINT, and waits for it; its exit status in BG_RC
stop_bg() {
	kill -INT "$1" 2>/dev/null
	wait "$1"
	BG_RC=$?
}

# perf_events_open PID N: the perf stat PID has N perf events open (it is
# attached to N threads: perf says nothing when it is)
perf_events_open() {
	local i
	for i in $(seq 1 1200); do
		[ "$(ls -l /proc/"$1"/fd 2>/dev/null | grep -c 'perf_event')" -ge "$2" ] && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# free_port: a TCP port nobody listens on, on the loopback
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
