# A Go program (tests/real/goblock.go, built here with Debian's golang-go:
# frame pointers on amd64): its functions named in offcputime's and
# wakers' stacks, its blocks counted as it made them.
source "$ROOT/tests/real/real.sh"

go_main() {
	need_cmds golang-go go || return 0
	local gb=$BUILD/real/goblock N=20 MS=20
	mkdir -p "$BUILD/real"
	if [ ! -x "$gb" ] || [ "$ROOT/tests/real/goblock.go" -nt "$gb" ]; then
		(cd "$ROOT/tests/real" && HOME=$T GOCACHE=$BUILD/real/gocache GOFLAGS=-mod=mod GO111MODULE=off \
			go build -o "$gb" goblock.go) >"$T/gobuild.err" 2>&1
	fi
	check "the Go program builds (go build)" test -x "$gb"
	[ -x "$gb" ] || { sed 's/^/#   /' "$T/gobuild.err" | head -5; return 0; }

	# offcputime --state S (the blocks the program makes: a preemption of
	# its thread would be an interval of another state) and wakers, both
	# attached before the program starts; stopped once it says it is done
	WL_GOFILE=$(mktemp -u "$T/go.XXXXXX")
	WL_GO=$WL_GOFILE start_cmd "$gb" "$N" "$MS"
	GP=$WL_PID
	start_bg oc 'tracing' "$BIN/offcputime" -p "$GP" --state S -m 0 -j; OC=$BG_PID
	start_bg wk 'tracing' "$BIN/wakers" -p "$GP" -f; WK=$BG_PID
	touch "$WL_GOFILE"
	wait_line "$WL_OUT" '^done'
	check_eq "the Go program made its $N blocks and $N wakeups" "$(sed -n 's/^done //p' "$WL_OUT")" "$N"
	stop_bg "$OC"; check_eq "offcputime: exit 0" "$BG_RC" 0
	stop_bg "$WK"; check_eq "wakers: exit 0" "$BG_RC" 0
	kill "$GP" 2>/dev/null

	# (in the system call: on the way out of it, the thread may also wait
	# in the runtime for a P that sysmon took while it slept, under
	# main.goSleepHere too)
	check_eq "offcputime: the $N sleeps of main.goSleepHere, exactly, under its name" \
		"$(json_get "$T/oc.out" "sum(s['count'] for s in d['stacks'] if 'main.goSleepHere' in s['user_stack'] and s['user_stack'][-1] == 'runtime/internal/syscall.Syscall6')")" "$N"
	check_eq "offcputime: main.main, then main.goSleepHere, then a function of package syscall" \
		"$(json_get "$T/oc.out" "any(__import__('re').search(r'(^|;)main\.main;(.*;)?main\.goSleepHere;(.*;)?syscall\.\w+', ';'.join(s['user_stack']) + ';') for s in d['stacks'])")" True
	check_eq "offcputime: the reader's waits, in main.goReadHere" \
		"$(json_get "$T/oc.out" "sum(s['count'] for s in d['stacks'] if 'main.goReadHere' in s['user_stack']) >= 1")" True
	check_grep "wakers: the waker named main.goPokeReader" ';main\.goPokeReader;' "$T/wk.out"
	W=$(folded_sum ';main\.goPokeReader;.*pipe_write_\[k\]' "$T/wk.out")
	if [ "$W" -ge 1 ] && [ "$W" -le "$N" ]; then
		pass "wakers: main.goPokeReader's wakeups in pipe_write, at most one a write ($W of $N)"
	else
		fail "wakers: main.goPokeReader's wakeups in pipe_write, at most one a write (got '$W', want 1..$N)"
	fi
}
go_main
