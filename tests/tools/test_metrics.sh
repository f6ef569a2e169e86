# --metrics and --metrics-file, checked by the real consumers: promtool
# checks the exposition, a Prometheus server (started here on a free
# loopback port, its own config and storage, scraping every second)
# scrapes syswatch while syswatch_calls makes exactly K getppid and F
# failing close(-1) calls, and its HTTP API must answer K and F.
SW=$BIN/syswatch
K=1234
F=5
export WL_TMP=$T	# where evil_names writes its patched copy

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# http_get URL OUT: the body into OUT; prints the status and the
# Content-Type
http_get() {
	python3 - "$1" "$2" <<'PY'
import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(sys.argv[1], timeout=10)
    code, ctype, body = r.status, r.headers.get("Content-Type"), r.read()
except urllib.error.HTTPError as e:
    code, ctype, body = e.code, e.headers.get("Content-Type"), e.read()
open(sys.argv[2], "wb").write(body)
print(code, ctype)
PY
}
# prom_query EXPR: the value of Prometheus' instant query EXPR ("" if none)
prom_query() {
	python3 - "http://127.0.0.1:$PROM_PORT/api/v1/query" "$1" <<'PY'
import sys, json, urllib.request, urllib.parse
u = sys.argv[1] + "?" + urllib.parse.urlencode({"query": sys.argv[2]})
try:
    d = json.load(urllib.request.urlopen(u, timeout=5))
    r = d["data"]["result"]
    print(r[0]["value"][1] if len(r) == 1 else "")
except Exception:
    print("")
PY
}
# prom_wait EXPR WANT [MAX]: polls the query until it answers WANT (or,
# with MAX, a number in WANT..MAX; 30 s at most); the last answer in $GOT
prom_wait() {
	local i
	GOT=
	[ -n "$PORT" ] && [ -n "$PF_PORT" ] && [ -n "$SS_PORT" ] || return 1	# no exporter to scrape
	for i in $(seq 1 60); do
		GOT=$(prom_query "$1")
		[ "$GOT" = "$2" ] && return 0
		[ -n "${3:-}" ] && [ -n "$GOT" ] && [ "${GOT%.*}" -ge "$2" ] &&
			[ "${GOT%.*}" -le "$3" ] && return 0
		sleep 0.5
	done
	return 1
}
# exporter_port ERR: the port the tool says it serves on
exporter_port() {
	sed -n 's#.*serving metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics$#\1#p' "$1"
}

# 1. bad input: exit 2 with a message, before anything is loaded
python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$T/held" &
HELD_PID=$!
WL_PIDS+=("$HELD_PID")
wait_line "$T/held" '^[0-9]+$'
HELD=$(head -1 "$T/held")
mkdir -p "$T/adir"
bad() {	# DESC ERE ARGS...
	local d=$1 re=$2; shift 2
	"$SW" "$@" -d 1 >"$T/bad.out" 2>"$T/bad.err"
	check_eq "bad input: $d exits 2" "$?" 2
	check_grep "bad input: $d is named" "$re" "$T/bad.err"
	check_nogrep "bad input: $d: nothing traced" 'tracing' "$T/bad.err"
}
bad "a port in use" "--metrics '?127.0.0.1:$HELD'?: Address already in use" --metrics "127.0.0.1:$HELD"
bad "a port out of range" "--metrics '70000'" --metrics 70000
bad "a host name" "--metrics 'localhost:80': not an IPv4 address" --metrics localhost:80
bad "a bad IPv4 address" "not an IPv4 address" --metrics 1.2.3:80
bad "an address not of this machine" "Cannot assign requested address" --metrics 192.0.2.1:9100
bad "a file in a missing directory" "--metrics-file: cannot write $T/none/m.prom: No such file" \
	--metrics-file "$T/none/m.prom"
bad "a directory as the file" "--metrics-file: $T/adir is a directory" --metrics-file "$T/adir"
bad "an interval too short" "invalid --metrics-interval: 0.05 \(0.1 to 3600 seconds\)" \
	--metrics 0 --metrics-interval 0.05
bad "an interval that is not a number" "invalid --metrics-interval" --metrics 0 --metrics-interval 1x
bad "an interval without an exporter" "--metrics-interval needs --metrics or --metrics-file" \
	--metrics-interval 2
"$BIN/schedsilence" -C 0 --metrics-top 0 --metrics 0 -d 1 >"$T/bad.out" 2>"$T/bad.err"
check_eq "schedsilence: bad input: --metrics-top 0 exits 2" "$?" 2
check_grep "schedsilence: bad input: --metrics-top 0 is named" "invalid --metrics-top" "$T/bad.err"
"$BIN/schedsilence" -C 0 --metrics-top 3 -d 1 >"$T/bad.out" 2>"$T/bad.err"
check_eq "schedsilence: bad input: --metrics-top without an exporter exits 2" "$?" 2
check_grep "schedsilence: bad input: --metrics-top without an exporter is named" \
	"--metrics-top needs --metrics or --metrics-file" "$T/bad.err"
"$BIN/pfwatch" --metrics "127.0.0.1:$HELD" -d 1 >"$T/bad.out" 2>"$T/bad.err"
check_eq "pfwatch: bad input: a port in use exits 2" "$?" 2
check_nogrep "pfwatch: bad input: nothing traced" 'tracing' "$T/bad.err"
kill "$HELD_PID" 2>/dev/null

# 2. syswatch as an exporter: -p, --per-thread, both outputs; pfwatch on
#    pf_toucher, whose thread touches PF fresh pages (PF faults, and not
#    10% more: its stack, libc), then stays 600 s (killed at the end: a busy machine took longer than 60 s to query them all)
start_wl syswatch_calls "$K" -1 "$F" 0 0 hold	# then blocks 600 s: stays alive
SW_WL=$WL_PID
"$SW" -p "$WL_PID" --per-thread --metrics 127.0.0.1:0 --metrics-file "$T/sw.prom" \
	>"$T/sw.out" 2>"$T/sw.err" &
SW_PID=$!
PF=2000
start_wl pf_toucher "$PF" 60000 thread 0 0 600000
PF_WL=$WL_PID
"$BIN/pfwatch" -p "$PF_WL" --metrics 0 >"$T/pf.out" 2>"$T/pf.err" &
PF_PID=$!
# schedsilence on CPU 1, where silence_pinned's ss_intruder arrives
# SS_N + 1 times, every ms (and ss_spinner, allowed, spins); this test's
# own processes stay on CPU 0, so that ss_intruder is among CPU 1's top
# 10 task names
taskset -pc 0 $$ >/dev/null
SS_N=1000
start_wl silence_pinned 1 "$SS_N" 1 600000
read -r SS_WL _ SS_INTR <"$WL_OUT"
"$BIN/schedsilence" -C 1 --allow-comm ss_spinner -j --metrics 0 >"$T/ss.json" 2>"$T/ss.err" &
SS_PID=$!
ready "$T/sw.err" "$SW_PID" 'tracing syscalls'
ready "$T/ss.err" "$SS_PID" 'watching CPU'
SS_PORT=$(exporter_port "$T/ss.err")
check "schedsilence: the exporter says where it serves (port $SS_PORT)" test -n "$SS_PORT"
ready "$T/pf.err" "$PF_PID" 'tracing page faults'
PORT=$(exporter_port "$T/sw.err")
PF_PORT=$(exporter_port "$T/pf.err")
check "the exporter says where it serves (port $PORT)" test -n "$PORT"
check "pfwatch: the exporter says where it serves (port $PF_PORT)" test -n "$PF_PORT"
URL=http://127.0.0.1:$PORT

PROM_PORT=$(free_port)
mkdir -p "$T/prom"
# the alert rules of docs/FLEET.md, as written there
awk '/^```yaml$/ { f = 1; b = ""; next } /^```$/ && f { f = 0; if (b ~ /^groups:/) printf "%s", b }
	f { b = b $0 "\n" }' \
	"$ROOT/docs/FLEET.md" >"$T/prom/rules.yml"
check "docs/FLEET.md: promtool check rules passes on its alert rules" \
	promtool check rules "$T/prom/rules.yml"
cat >"$T/prom/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $T/prom/rules.yml
scrape_configs:
  - job_name: syswatch
    static_configs:
      - targets: ['127.0.0.1:$PORT']
  - job_name: pfwatch
    static_configs:
      - targets: ['127.0.0.1:$PF_PORT']
  - job_name: schedsilence
    static_configs:
      - targets: ['127.0.0.1:$SS_PORT']
YML
prometheus --config.file="$T/prom/prometheus.yml" --storage.tsdb.path="$T/prom/data" \
	--web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$T/prom.log" 2>&1 &
PROM_PID=$!
WL_PIDS+=("$PROM_PID")

# a slow client: half a request line, then nothing; the responder must
# close it (HTTP_DEADLINE_MS, 5 s) while answering the others
python3 - "$PORT" >"$T/slow" <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /metr")
s.settimeout(15)
t = time.monotonic()
try:
    closed = s.recv(100) == b""
except Exception:
    closed = False
print("closed" if closed else "open", round(time.monotonic() - t, 1))
PY
SLOW_PID=$!
# every target scraped once before the workloads go: increase() then
# sees their first calls
prom_wait 'count(up == 1)' 3
check_eq "Prometheus: the three exporters are up" "$GOT" 3
kill -USR1 "$SW_WL" "$PF_WL" "$SS_WL"

set -- $(http_get "$URL/metrics" "$T/m1")
check_eq "GET /metrics: 200" "$1" 200
check_eq "GET /metrics: Content-Type text/plain; version=0.0.4" "$2 $3" "text/plain; version=0.0.4;"
check "promtool check metrics passes on the exposition" promtool check metrics <"$T/m1"
set -- $(http_get "$URL/" "$T/m2")
check_eq "GET /: 404" "$1" 404
python3 - "$PORT" >"$T/big" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 9000)
print(s.recv(100).split(b"\r\n")[0].decode())
PY
check_eq "a request over 8 KiB of headers: 431" "$(cat "$T/big")" "HTTP/1.1 431 Request Header Fields Too Large"

prom_wait 'syswatch_syscall_duration_seconds_count{syscall="getppid"}' "$K"
check_eq "Prometheus: the getppid calls, exactly" "$GOT" "$K"
prom_wait 'syswatch_syscall_duration_seconds_bucket{syscall="getppid",le="+Inf"}' "$K"
check_eq "Prometheus: the +Inf bucket holds them all" "$GOT" "$K"
prom_wait 'syswatch_syscall_errors_total{syscall="close",errno="EBADF"}' "$F"
check_eq "Prometheus: the failed close calls by errno" "$GOT" "$F"
prom_wait 'syswatch_thread_syscall_duration_seconds_count{syscall="getppid",comm="sw_caller"}' "$K"
check_eq "Prometheus: --per-thread: the calls of sw_caller" "$GOT" "$K"
prom_wait 'syswatch_build_info' 1
check_eq "Prometheus: build_info" "$GOT" 1
prom_wait 'syswatch_syscalls_total - scalar(sum(syswatch_syscalls_untimed_total))' $((K + F))
check_eq "Prometheus: every call in the total (less the untimed: the waits before the start)" "$GOT" $((K + F))
prom_wait 'ALERTS{alertname="HotThreadSyscalls",alertstate="firing"}' 1
check_eq "docs/FLEET.md: the alert on a hot thread making syscalls fires" "$GOT" 1
prom_wait 'ALERTS{alertname="HotCpuNotSilent",cpu="1",alertstate="pending"}' 1
check_eq "docs/FLEET.md: the alert on CPU 1 not silent is pending (for: 1m)" "$GOT" 1

wait "$SLOW_PID"
read -r SLOW SLOW_S <"$T/slow"
check_eq "a slow client is closed by the responder (after $SLOW_S s)" "$SLOW" closed
http_get "$URL/metrics" "$T/m3" >/dev/null
check_grep "the slow client is counted" '^syswatch_losses_total\{kind="scrapes_timed_out"\} [1-9]' "$T/m3"
check_grep "--metrics-file: the same counts" \
	"^syswatch_syscall_duration_seconds_count\\{syscall=\"getppid\"\\} $K\$" "$T/sw.prom"
check "--metrics-file: promtool check metrics passes" promtool check metrics <"$T/sw.prom"
kill -TERM "$SW_PID"
wait "$SW_PID"
check_eq "SIGTERM ends the exporter: exit 0" "$?" 0
check_grep "then it reports as usual" "getppid +$K " "$T/sw.out"
check_eq "--metrics-file: no temporary file left" "$(ls "$T" | grep -c '\.tmp$')" 0

prom_wait 'sum(pfwatch_faults_total{job="pfwatch",kind="minor"})' "$PF" $((PF * 11 / 10))
check "pfwatch: Prometheus: the minor faults after the warm-up ($GOT)" \
	test "${GOT%.*}" -ge "$PF" -a "${GOT%.*}" -le $((PF * 11 / 10))
prom_wait 'sum(pfwatch_faults_total{job="pfwatch",kind="major"})' 0
check_eq "pfwatch: Prometheus: no major fault" "$GOT" 0
prom_wait "pfwatch_memory_all_locked{pid=\"$PF_WL\"}" 0
check_eq "pfwatch: Prometheus: the memory is not locked" "$GOT" 0
prom_wait 'pfwatch_build_info' 1
check_eq "pfwatch: Prometheus: build_info" "$GOT" 1
http_get "http://127.0.0.1:$PF_PORT/metrics" "$T/pf.prom" >/dev/null
check "pfwatch: promtool check metrics passes" promtool check metrics <"$T/pf.prom"
check_grep "pfwatch: its losses, by kind" '^pfwatch_losses_total\{kind="aggregation_map_full"\} 0$' "$T/pf.prom"
kill -INT "$PF_PID"
wait "$PF_PID"
check_eq "pfwatch: SIGINT ends the exporter: exit 0" "$?" 0

# schedsilence: ss_intruder's arrivals (at least SS_N; what it did before
# it was among the CPU's top 10 task names went to "other"), as many as
# the report at the end says at most; the CPU is not silent here (ticks)
SS_Q="schedsilence_intrusions_total{job=\"schedsilence\",cpu=\"1\",kind=\"task\",name=\"ss_intruder\"}"
prom_wait "$SS_Q" "$SS_N" 100000
SS_PROM=${GOT%.*}
check "schedsilence: Prometheus: ss_intruder's arrivals on CPU 1 ($GOT)" test -n "$GOT"
prom_wait 'schedsilence_silent{job="schedsilence",cpu="1"}' 0
check_eq "schedsilence: Prometheus: CPU 1 is not silent" "$GOT" 0
prom_wait 'schedsilence_interrupts_total{job="schedsilence",cpu="1",irq="LOC"} > 0' 1 100000000
check "schedsilence: Prometheus: local timer interrupts on CPU 1 ($GOT)" test -n "$GOT"
prom_wait 'count(schedsilence_intrusions_total{job="schedsilence",cpu="1",kind="task",name!="other"})' 1 10
check "schedsilence: Prometheus: at most 10 task names on CPU 1 ($GOT)" test -n "$GOT"
http_get "http://127.0.0.1:$SS_PORT/metrics" "$T/ss.prom" >/dev/null
check "schedsilence: promtool check metrics passes" promtool check metrics <"$T/ss.prom"
kill -INT "$SS_PID"
wait "$SS_PID"
check_eq "schedsilence: SIGINT ends the exporter: exit 1 (not silent)" "$?" 1
SS_JSON=$(json_get "$T/ss.json" "sum(r['count'] for r in d['intruders'] if r['cpu']==1 and r['kind']=='task' and r['name']=='ss_intruder')")
check "schedsilence: no more than the report's $SS_JSON arrivals ($SS_PROM)" \
	test -n "$SS_PROM" -a "$SS_PROM" -le "${SS_JSON:-0}"

kill "$PROM_PID" 2>/dev/null
wait "$PROM_PID" 2>/dev/null
{ kill -9 "$SW_WL" "$PF_WL" "$SS_WL"; wait_wl; } 2>/dev/null
taskset -pc "0-$(($(nproc) - 1))" $$ >/dev/null

# 3. names a traced process chooses: comms with ESC and a newline stay
#    inside their label value, escaped (\x1b[31m\x0a, its backslashes
#    doubled by the format)
start_wl_held evil_names sleep 3 50
read -r WL_PID EV_TID <"$WL_OUT"
run_held "$T/e.out" "$T/e.err" "$SW" -p "$WL_PID" --per-thread --metrics-file "$T/e.prom" -d 30
check_eq "evil names: exit 0" "$RUN_RC" 0
check "evil names: promtool check metrics passes" promtool check metrics <"$T/e.prom"
check_grep "evil names: the escaped comm, its 3 sleeps" \
	"^syswatch_thread_syscall_duration_seconds_count\\{syscall=\"(clock_)?nanosleep\",tid=\"$EV_TID\",pid=\"$WL_PID\",comm=\"ev\\\\\\\\x1b\\[31m\\\\\\\\x0awork\"\\} 3\$" "$T/e.prom"
check_nogrep "evil names: no line split by a name" '^(work|main)' "$T/e.prom"

# 4. --metrics-interval: two exporters of one workload's K getppid calls,
#    one taking a snapshot every 0.2 s, the other every hour. The first
#    file shows the K calls while tracing; the hourly one still shows the
#    snapshot taken before attaching (0 calls) then, and K once SIGINT
#    makes its last snapshot
start_wl syswatch_calls "$K" -1 0 0 0 hold
IV_WL=$WL_PID
"$SW" -p "$IV_WL" --metrics-file "$T/fast.prom" --metrics-interval 0.2 >/dev/null 2>"$T/fast.err" &
FAST_PID=$!
"$SW" -p "$IV_WL" --metrics-file "$T/slow.prom" --metrics-interval 3600 >/dev/null 2>"$T/slow.err" &
SLOW_PID=$!
ready "$T/fast.err" "$FAST_PID" 'tracing syscalls'
ready "$T/slow.err" "$SLOW_PID" 'tracing syscalls'
kill -USR1 "$IV_WL"
for i in $(seq 1 100); do
	grep -q "^syswatch_syscall_duration_seconds_count{syscall=\"getppid\"} $K\$" "$T/fast.prom" && break
	sleep 0.1
done
check_grep "--metrics-interval 0.2: the $K calls while tracing" \
	"^syswatch_syscall_duration_seconds_count\\{syscall=\"getppid\"\\} $K\$" "$T/fast.prom"
check_grep "--metrics-interval 3600: no snapshot since the first (0 calls)" \
	'^syswatch_syscalls_total 0$' "$T/slow.prom"
kill -INT "$FAST_PID" "$SLOW_PID"
wait "$FAST_PID" "$SLOW_PID"
check_grep "--metrics-interval 3600: the last snapshot at the end has the $K calls" \
	"^syswatch_syscall_duration_seconds_count\\{syscall=\"getppid\"\\} $K\$" "$T/slow.prom"
{ kill -9 "$IV_WL"; wait_wl; } 2>/dev/null

# 5. --metrics-top 1: one task name of CPU 1 has a series of its own
#    (ss_intruder arrives there 21 times, or a busier one), the others
#    count in name="other"
taskset -pc 0 $$ >/dev/null
start_wl silence_pinned 1 20 5 600000
read -r TOP_WL _ <"$WL_OUT"
run_released "$T/top.json" "$T/top.err" 'watching CPU' 'kill -USR1 $TOP_WL' \
	"$BIN/schedsilence" -C 1 -d 2 -j --allow-comm ss_spinner --metrics-file "$T/top.prom" \
	--metrics-top 1
check_eq "--metrics-top 1: schedsilence exits 1 (CPU 1 is not silent)" "$RUN_RC" 1
check "--metrics-top 1: promtool check metrics passes" promtool check metrics <"$T/top.prom"
TOP_NAMED=$(grep -c '^schedsilence_intrusions_total{cpu="1",kind="task",name="[^"]*"}' "$T/top.prom")
TOP_OTHER=$(grep -c '^schedsilence_intrusions_total{cpu="1",kind="task",name="other"}' "$T/top.prom")
check_eq "--metrics-top 1: one task name with a series of its own" "$((TOP_NAMED - TOP_OTHER))" 1
{ kill -9 "$TOP_WL"; wait_wl; } 2>/dev/null
taskset -pc "0-$(($(nproc) - 1))" $$ >/dev/null

# 6. faults the kernel counted on pfwatch's events that its program did not
#    see: SUITE_TEST_SKIP_FAULT=10 makes every 10th run do nothing, as if the
#    kernel had not run it. 2000 faults: about 200 not seen, as many in the
#    last snapshot's losses_total as in the report's JSON; none without
start_wl pf_toucher 2000 60000 anon 0 0 300
run_released "$T/skip.json" "$T/skip.err" 'tracing page faults' release_usr1 \
	env SUITE_TEST_SKIP_FAULT=10 "$BIN/pfwatch" -p "$WL_PID" -j -d 30 --metrics-file "$T/skip.prom"
wait_wl
check_eq "faults not seen: pfwatch exits 0" "$RUN_RC" 0
NS_JSON=$(json_get "$T/skip.json" "d['losses']['faults_not_seen']")
check "faults not seen: the report counts about a tenth of 2000 ($NS_JSON)" \
	test "${NS_JSON:-0}" -ge 180 -a "${NS_JSON:-0}" -le 260
check_grep "faults not seen: the same count in the metrics" \
	"^pfwatch_losses_total\\{kind=\"faults_not_seen\"\\} $NS_JSON\$" "$T/skip.prom"
check_grep "faults not seen: said on stderr" \
	"^pfwatch: $NS_JSON page faults counted by the kernel were not seen by the BPF program" "$T/skip.err"
start_wl pf_toucher 2000 60000 anon 0 0 300
run_released "$T/noskip.json" "$T/noskip.err" 'tracing page faults' release_usr1 \
	"$BIN/pfwatch" -p "$WL_PID" -j -d 30 --metrics-file "$T/noskip.prom"
wait_wl
check_eq "faults not seen: none without the knob (JSON)" \
	"$(json_get "$T/noskip.json" "d['losses']['faults_not_seen']")" 0
check_grep "faults not seen: none without the knob (metrics)" \
	'^pfwatch_losses_total\{kind="faults_not_seen"\} 0$' "$T/noskip.prom"
