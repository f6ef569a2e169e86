# Names a traced process chooses reach no terminal raw: evil_names gives
# its threads comms with an ESC sequence and a newline ("ev\e[31m\nwork",
# ...) and names its functions and a variable the same way in its symbol
# table ("evil\e[31m\nblock", ...), then does known work.  For each tool:
# the plain output holds no control byte but the line ends, the escaped
# name (\x1b[31m\x0a) is there, no row is split by a name, the counts are
# exact; JSON stays valid and holds the raw name.
export WL_TMP=$T	# where evil_names writes its patched copy
E='\x1b[31m\x0a'	# the escaped form, for grep -F
ERE='\\x1b\[31m\\x0a'	# the same, as an ERE

# safe_text FILE: no byte below 0x20 but '\n', no DEL, valid UTF-8 without
# C1 controls
safe_text() {
	python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
bad = [c for c in b if (c < 0x20 and c != 0x0a) or c == 0x7f]
try:
    t = b.decode("utf-8")
except UnicodeDecodeError:
    sys.exit(1)
sys.exit(1 if bad or any(0x80 <= ord(c) <= 0x9f for c in t) else 0)' "$1"
}
check_safe() {	# DESC FILE
	if safe_text "$2"; then pass "$1"
	else fail "$1 (control bytes in $2)"; LC_ALL=C grep -an $'[\x01-\x09\x0b-\x1f\x7f]' "$2" | head -3 | cat -v | sed 's/^/#   /'; fi
}
# a name's newline, printed raw, starts a line with the word after it
check_unsplit() {	# DESC FILE
	check_nogrep "$1" '^(work|main|target|sender)( |\)|$)|^(block|signal|touch|write|data)(\+| |$)' "$2"
}
# count_fixed FILE STRING: lines holding STRING
count_fixed() { grep -cF -- "$2" "$1"; }
# after_frame FILE FRAME ERE: the first line matching ERE after the line
# that is FRAME (plain stack output: the record's comm and totals follow)
after_frame() {
	F=$2 RE=$3 awk '$0 == ENVIRON["F"] { on = 1; next }
		on && $0 ~ ENVIRON["RE"] { print; exit }' "$1"
}

# ev_start MODE ARGS...: the workload, held until the tool traces; its pid
# in $WL_PID, the worker's tid in $EV_TID (and "main" in $EV_MAIN)
ev_start() {
	start_wl_held evil_names "$@"
	read -r WL_PID EV_TID EV_MAIN <"$WL_OUT"
}

# 1. offcputime: 5 blocks of 100 ms in evil\e[31m\nblock by "ev\e[31m\nwork"
#    (--state S: a preemption under load would add an interval)
ev_start sleep 5 100
run_held "$T/o1" "$T/o1.err" "$BIN/offcputime" -t "$EV_TID" -d 30 --state S
check_eq "offcputime: exit 0" "$RUN_RC" 0
check_safe "offcputime plain: no control byte" "$T/o1"
check_unsplit "offcputime plain: no line split by a name" "$T/o1"
check_eq "offcputime plain: one comm line per record, each the escaped comm" \
	"$(count_fixed "$T/o1" "    -                ev${E}work ($WL_PID/$EV_TID)")" \
	"$(grep -cE '^        [0-9]+ us in [0-9]+ intervals?$' "$T/o1")"
# records (blank-line separated) holding the escaped frame: their intervals
check_eq "offcputime plain: the 5 blocks, exactly, under the escaped symbol" \
	"$(F="    evil${E}block" awk -v RS= -F '\n' '{ for (i = 1; i <= NF; i++) if ($i == ENVIRON["F"]) { n = split($NF, w, " "); s += w[n - 1] } } END { print s + 0 }' "$T/o1")" 5
check "offcputime plain: every line is a frame, a separator, a comm or a total" \
	awk '!/^$/ && !/^    [^ ]/ && !/^    -                .* \([0-9]+\/[0-9]+\)$/ &&
	     !/^        [0-9]+ us in [0-9]+ intervals?$/ { bad = 1 } END { exit bad }' "$T/o1"
ev_start sleep 5 100
run_held "$T/o2" "$T/o2.err" "$BIN/offcputime" -t "$EV_TID" -d 30 --state S -f
check_safe "offcputime folded: no control byte" "$T/o2"
check "offcputime folded: one 'stack value' line each" awk '$NF !~ /^[0-9]+$/ { exit 1 }' "$T/o2"
check_ge "offcputime folded: the escaped comm and symbol on one line" \
	"$(grep -cE "^ev${ERE}work;.*;evil${ERE}block;.*_\[k\] [0-9]+$" "$T/o2")" 1
check_ge "offcputime folded: 5 x 100 ms in it" \
	"$(folded_sum "^ev${ERE}work;.*;evil${ERE}block;" "$T/o2")" 495000
ev_start sleep 5 100
run_held "$T/o3" "$T/o3.err" "$BIN/offcputime" -t "$EV_TID" -d 30 --state S -j
check "offcputime JSON: valid" json_ok "$T/o3"
check_eq "offcputime JSON: the raw comm and symbol, 5 intervals" \
	"$(json_get "$T/o3" "sum(s['count'] for s in d['stacks'] if s['comm'] == 'ev\x1b[31m\nwork' and 'evil\x1b[31m\nblock' in s['user_stack'])")" 5

# 2. wakers: "ev\e[31m\nsender" signals "ev\e[31m\ntarget" 6 times from
#    evil\e[31m\nsignal; each signal wakes it
ev_start signal 6
run_held "$T/w1" "$T/w1.err" "$BIN/wakers" -t "$EV_TID" -d 30
check_eq "wakers: the workload sent 6" "$(sed -n 's/^sent //p' "$WL_OUT")" 6
check_safe "wakers plain: no control byte" "$T/w1"
check_unsplit "wakers plain: no line split by a name" "$T/w1"
check_eq "wakers plain: the escaped waker, target, sender" \
	"$(count_fixed "$T/w1" "waker ev${E}sender ($WL_PID/")$(count_fixed "$T/w1" "woke ev${E}target ($WL_PID/$EV_TID)")$(count_fixed "$T/w1" "sender ev${E}sender ($WL_PID/")" 111
check_eq "wakers plain: the escaped symbol in both stacks" "$(count_fixed "$T/w1" "    evil${E}signal")" 2
check_grep "wakers plain: the signal line, escaped target" \
	"^    -                SIGUSR1 \\(10\\) to ev${ERE}target \\($WL_PID/$EV_TID\\)\$" "$T/w1"
check_grep "wakers plain: 6 signals, delivered" '^        6 signals, delivered$' "$T/w1"
check_grep "wakers plain: 6 wakeups and 6 signals" '^6 wakeups and 6 signals of the traced threads\.$' "$T/w1"
ev_start signal 6
run_held "$T/w2" "$T/w2.err" "$BIN/wakers" -t "$EV_TID" -d 30 -j
check "wakers JSON: valid" json_ok "$T/w2"
check_eq "wakers JSON: raw sender and target comms, raw symbol, 6 signals" \
	"$(json_get "$T/w2" "[(s['sender']['comm'], s['target']['comm'], s['user_stack'][-1], s['count']) for s in d['signals']] == [('ev\x1b[31m\nsender', 'ev\x1b[31m\ntarget', 'evil\x1b[31m\nsignal', 6)]")" True
ev_start signal 6
run_held "$T/w3" "$T/w3.err" "$BIN/wakers" -t "$EV_TID" -d 30 -f
check_safe "wakers folded: no control byte" "$T/w3"
check_eq "wakers folded: 6 wakeups by the escaped sender from the escaped symbol" \
	"$(folded_sum "^ev${ERE}sender;.*;evil${ERE}signal;" "$T/w3")" 6

# 3. syswatch: 4 nanosleep calls of 50 ms from evil\e[31m\nblock
ev_start sleep 4 50
run_held "$T/s1" "$T/s1.err" "$BIN/syswatch" -t "$EV_TID" -d 30 --per-thread
check_safe "syswatch --per-thread: no control byte" "$T/s1"
check_unsplit "syswatch --per-thread: no line split by a name" "$T/s1"
check_eq "syswatch --per-thread: the thread's line, escaped comm" \
	"$(count_fixed "$T/s1" "tid $EV_TID (ev${E}work), pid $WL_PID")" 1
check_grep "syswatch --per-thread: 4 nanosleep calls, exactly" '^  nanosleep +4 +0 ' "$T/s1"
ev_start sleep 4 50
run_held "$T/s2" "$T/s2.err" "$BIN/syswatch" -t "$EV_TID" -d 30 --slower-than 20
check_safe "syswatch --slower-than: no control byte" "$T/s2"
check_unsplit "syswatch --slower-than: no line split by a name" "$T/s2"
check_eq "syswatch --slower-than: 4 slow calls, the escaped comm in its column" \
	"$(grep -cE "^[0-9:.]+ $EV_TID +ev${ERE}work +nanosleep +[0-9.]+ms 0\$" "$T/s2")" 4
check_eq "syswatch --slower-than: the escaped symbol under each" \
	"$(count_fixed "$T/s2" "    evil${E}block")" 4
ev_start sleep 1 5000
run_held "$T/s3" "$T/s3.err" "$BIN/syswatch" -p "$WL_PID" -d 1.5
check_safe "syswatch in-progress table: no control byte" "$T/s3"
check_unsplit "syswatch in-progress table: no row split by a name" "$T/s3"
check_eq "syswatch in-progress table: two rows, the escaped comms" \
	"$(sed -n '/^In progress/,$p' "$T/s3" | grep -cE "^ *[0-9]+ +$WL_PID +ev${ERE}(work|main) +[a-z_0-9]+ +[0-9.]+m?s\$")" 2
check_eq "syswatch in-progress table: the worker in nanosleep" \
	"$(grep -cE "^ *$EV_TID +$WL_PID +ev${ERE}work +nanosleep " "$T/s3")" 1
ev_start sleep 1 5000
run_held "$T/s4" "$T/s4.err" "$BIN/syswatch" -p "$WL_PID" -d 1.5 -j
check "syswatch JSON: valid" json_ok "$T/s4"
check_eq "syswatch JSON: the raw comm in progress" \
	"$(json_get "$T/s4" "sorted(i['comm'] for i in d['in_progress']) == ['ev\x1b[31m\nmain', 'ev\x1b[31m\nwork']")" True

# 4. pfwatch: 300 fresh pages touched in evil\e[31m\ntouch
ev_start touch 300
run_held "$T/p1" "$T/p1.err" "$BIN/pfwatch" -p "$WL_PID" -d 30
check_safe "pfwatch plain: no control byte" "$T/p1"
check_unsplit "pfwatch plain: no line split by a name" "$T/p1"
check_eq "pfwatch plain: the memory-locking line, escaped comm" \
	"$(count_fixed "$T/p1" "Memory locking of process $WL_PID (ev${E}main):")" 1
check_eq "pfwatch plain: the escaped symbol, once" "$(count_fixed "$T/p1" "    evil${E}touch")" 1
check_eq "pfwatch plain: 300 faults in it, exactly, under the escaped comm" \
	"$(after_frame "$T/p1" "    evil${E}touch" '^    -   ')|$(after_frame "$T/p1" "    evil${E}touch" ' faults? \(' | grep -oE '^ +[0-9]+ faults? \([0-9]+ major' | tr -s ' ')" \
	"    -                ev${E}work ($WL_PID/$EV_TID)| 300 faults (0 major"
ev_start touch 300
run_held "$T/p2" "$T/p2.err" "$BIN/pfwatch" -p "$WL_PID" -d 30 -f
check_safe "pfwatch folded: no control byte" "$T/p2"
check_eq "pfwatch folded: 300 faults under the escaped comm and symbol" \
	"$(folded_sum "^ev${ERE}work;.*;evil${ERE}touch [0-9]+$" "$T/p2")" 300
check_safe "pfwatch folded: stderr has no control byte" "$T/p2.err"
check_eq "pfwatch folded: the memory-locking line on stderr, escaped" \
	"$(count_fixed "$T/p2.err" "Memory locking of process $WL_PID (ev${E}main):")" 1
ev_start touch 300
run_held "$T/p3" "$T/p3.err" "$BIN/pfwatch" -p "$WL_PID" -d 30 -j
check "pfwatch JSON: valid" json_ok "$T/p3"
check_eq "pfwatch JSON: 300 faults, raw comm and symbol" \
	"$(json_get "$T/p3" "sum(e['count'] for e in d['faults'] if e['comm'] == 'ev\x1b[31m\nwork' and e['user_stack'] and e['user_stack'][-1] == 'evil\x1b[31m\ntouch')")" 300

# 5. schedsilence: "ev\e[31m\nwork", pinned to CPU 1, arrives N + 2 times
#    (the go, N timers, the exit that ends it); "ev\e[31m\nmain" (on
#    another CPU) is allowed by tid.  One wakeup of slack, as in
#    test_schedsilence (a tracepoint's program now and then not run).
N=10
ev_start spin 1 $N 20
run_held "$T/c1" "$T/c1.err" "$BIN/schedsilence" -C 1 -d 3 --allow-tid "$EV_MAIN" --timeline 100000
check_safe "schedsilence plain: no control byte" "$T/c1"
check_unsplit "schedsilence plain: no row split by a name" "$T/c1"
row=$(grep -E "^1 +task +ev${ERE}work +$EV_TID +[0-9]+ " "$T/c1")
check_eq "schedsilence plain: one row for the escaped intruder" "$(printf '%s' "$row" | grep -c .)" 1
cnt=$(printf '%s\n' "$row" | awk '{ print $5 }')
check "schedsilence plain: its switch-ins ($cnt) are its N + 2 = $((N + 2)) arrivals (-1, +2 preemptions)" \
	awk -v c="$cnt" -v n=$((N + 2)) 'BEGIN { exit !(c != "" && c >= n - 1 && c <= n + 2) }'
# (in each table that lists it: the intruders, and the Cadence table
# when it arrived 3 times or more, each under its own header)
check_eq "schedsilence plain: the tables' columns stay aligned (ID under ID)" \
	"$(awk -v t="$EV_TID" '/^ *CPU +KIND +NAME/ { c = index($0, "ID") + 1 } $2 == "task" && $4 == t && $3 ~ /^ev/ { print substr($0, c - length(t) + 1, length(t)) }' "$T/c1" | sort -u)" "$EV_TID"
check_eq "schedsilence plain: the intruder is in both tables" \
	"$(awk -v t="$EV_TID" '$2 == "task" && $4 == t && $3 ~ /^ev/' "$T/c1" | grep -c .)" 2
# (DURATION in the header's one unit: bare numbers)
check_eq "schedsilence plain: the timeline has a line per switch-in, escaped" \
	"$(grep -cE "^  [0-9.]+ +[0-9T:.Z-]+ +1 +task +ev${ERE}work +[0-9.]+\$" "$T/c1")" "$cnt"
check_eq "schedsilence plain: the allowed thread, escaped" \
	"$(grep -cE "^  ev${ERE}main +tid $EV_MAIN " "$T/c1")" 1
ev_start spin 1 $N 20
run_held "$T/c2" "$T/c2.err" "$BIN/schedsilence" -C 1 -d 3 --allow-tid "$EV_MAIN" -j
check "schedsilence JSON: valid" json_ok "$T/c2"
w=$(json_get "$T/c2" "[r['wakeups'] for r in d['intruders'] if r['kind'] == 'task' and r['name'] == 'ev\x1b[31m\nwork']")
check "schedsilence JSON: the raw comm, woken N + 2 = $((N + 2)) times (-1): $w" \
	test "$w" = "[$((N + 1))]" -o "$w" = "[$((N + 2))]"
check_eq "schedsilence JSON: the allowed thread's raw comm" \
	"$(json_get "$T/c2" "[a['comm'] for a in d['allowed']] == ['ev\x1b[31m\nmain']")" True

# 6. hitmtop: a replay stream of 50 x 2 HITMs on evil\e[31m\ndata, from
#    evil\e[31m\nwrite, symbolized from the live process
start_wl evil_names hitm 50 "$T/h.txt"
wait_line "$WL_OUT" '^ready$'
"$BIN/hitmtop" --replay "$T/h.txt" >"$T/h1" 2>"$T/h1.err"
check_safe "hitmtop plain: no control byte" "$T/h1"
check_unsplit "hitmtop plain: no line split by a name" "$T/h1"
check_grep "hitmtop plain: the line, 100 HITMs, named by the escaped variable" \
	"^0x[0-9a-f]+ +$WL_PID +100 +100/0 +100 +100 +0-1 +false sharing +evil${ERE}data\\+0x0 \\(evil_names\\.$WL_PID\\)\$" "$T/h1"
check_eq "hitmtop plain: two offsets, escaped variable and code" \
	"$(grep -cE "^    \\+0x[08] +50 +50 +50 +[01] +evil${ERE}data\\+0x[08] +evil${ERE}write evil_names\\.c:[0-9]+ \\(100\\)\$" "$T/h1")" 2
"$BIN/hitmtop" --replay "$T/h.txt" -j >"$T/h2" 2>/dev/null
check "hitmtop JSON: valid" json_ok "$T/h2"
check_eq "hitmtop JSON: the raw variable and code names" \
	"$(json_get "$T/h2" "(d['lines'][0]['symbol'], d['lines'][0]['offsets'][0]['code'][0]['symbol']) == ('evil\x1b[31m\ndata+0x0', 'evil\x1b[31m\nwrite')")" True
kill "$WL_PID" 2>/dev/null; wait_wl

# 7. stderr: a message quoting a hostile path is escaped too
check_rc "hitmtop: a replay file with ESC and newline in its name: exit 2" 2 \
	"$BIN/hitmtop" --replay "$T/no"$'\x1b[31m\n'"file"
check_safe "stderr: no control byte" "$T/rc.err"
check_eq "stderr: the path named, escaped, on one line" "$(grep -cF "no${E}file" "$T/rc.err")" 1
