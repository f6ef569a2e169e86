# hitmtop: this machine has no memory-sampling PMU, so the sampling path
# is checked for its refusal (exit 3) and the BPF program for loading; the
# whole user-space path runs on --replay streams built by hitm_gen from
# the addresses a real, running hitm_sharing prints.
HT=$BIN/hitmtop

# wait_ready: the workload printed its addresses
wait_ready() {
	local i
	for i in $(seq 1 300); do
		grep -q '^ready$' "$WL_OUT" 2>/dev/null && return 0
		sleep 0.01
	done
	return 1
}

jget() { json_get "$1" "$2" 2>/dev/null; }

# check_top_line TAG JSON VAR ADDR VERDICT: the report's first line is
# VAR's (at ADDR, named VAR+0x0), called VERDICT
check_top_line() {
	check_eq "$1: the first line is $3's" "$(jget "$2" 'd["lines"][0]["addr"]')" "$4"
	check_eq "$1: called $5" "$(jget "$2" 'd["lines"][0]["verdict"]')" "$5"
	check_eq "$1: named by the variable" "$(jget "$2" 'd["lines"][0]["symbol"]')" "$3+0x0"
}

# 1. No PEBS/IBS here: exit 3 at once, naming what is missing, no report.
check_rc "no PMU: exit 3" 3 "$HT" -d 5
check_grep "no PMU: the message names PEBS/IBS" 'no PEBS/IBS memory sampling exposed' "$T/rc.err"
check_grep "no PMU: the message says what would fix it" 'bare metal or a VM with PMU passthrough' "$T/rc.err"
check_eq "no PMU: nothing on stdout (no empty report)" "$(wc -c <"$T/rc.out")" 0
check_rc "no PMU: exit 3 with -j too" 3 "$HT" -j -i 1
check_eq "no PMU: no JSON document either" "$(wc -c <"$T/rc.out")" 0

# 2. A PMU that sysfs lists but the kernel cannot open (fake Intel tree):
#    the event strings and format files are read, the open fails: exit 3.
P=$T/pmu
mkdir -p "$P/cpu/events" "$P/cpu/format"
echo 4 >"$P/cpu/type"
echo 'event=0xcd,umask=0x1,ldlat=3' >"$P/cpu/events/mem-loads"
echo 'event=0xd0,umask=0x82' >"$P/cpu/events/mem-stores"
echo 'config:0-7' >"$P/cpu/format/event"
echo 'config:8-15' >"$P/cpu/format/umask"
echo 'config1:0-15' >"$P/cpu/format/ldlat"
check_rc "listed but unusable PEBS PMU: exit 3" 3 env HITMTOP_PMU_ROOT="$P" "$HT" -d 1
check_grep "unusable PMU: names the event and the CPU" 'opening mem-loads on cpu for CPU [0-9]+ failed' "$T/rc.err"
rm "$P/cpu/format/umask"
check_rc "PMU with a missing format file: exit 3" 3 env HITMTOP_PMU_ROOT="$P" "$HT" -d 1
check_grep "missing format file: named" 'format/umask' "$T/rc.err"
mkdir -p "$T/pmu2/ibs_op"
check_rc "ibs_op without a type file is not a PMU: exit 3" 3 env HITMTOP_PMU_ROOT="$T/pmu2" "$HT" -d 1
check_grep "empty root: the message lists nothing found" 'only: ibs_op' "$T/rc.err"

# 3. The BPF program passes the verifier (it cannot be attached here).
check_rc "--load-only loads the program: exit 0" 0 "$HT" --load-only
check_grep "--load-only says the verifier passed" 'hitm_sample loaded \(verifier passed\)' "$T/rc.err"
check_eq "--load-only leaves no program behind" "$(bpf_prog_count hitm_sample)" 0

# 4. False sharing from a real run: two counters 8 bytes apart, written
#    from CPUs 0 and 1.  100 rounds of (store + HITM load) per counter.
start_wl hitm_sharing false 2000000 60000
check "workload printed its addresses" wait_ready
FP=$(awk '$2 == "false_pair" { print $3 }' "$WL_OUT")
"$WL/hitm_gen" "$WL_OUT" false:100 >"$T/false.txt"
"$HT" --replay "$T/false.txt" -j >"$T/false.json" 2>"$T/false.err"
check_eq "false: exit 0 and JSON parses" "$?$(json_ok "$T/false.json" && echo ok)" 0ok
check_eq "false: one contended line" "$(jget "$T/false.json" 'len(d["lines"])')" 1
check_top_line false "$T/false.json" false_pair "$FP" "false sharing"
check_eq "false: exactly 200 HITMs, 200 loads, 200 stores" \
	"$(jget "$T/false.json" '[d["lines"][0][k] for k in ("hitm","loads","stores")]')" "[200, 200, 200]"
check_eq "false: two offsets, 0 and 8" \
	"$(jget "$T/false.json" '[o["offset"] for o in d["lines"][0]["offsets"]]')" "[0, 8]"
check_eq "false: offset 8 is false_pair+0x8" \
	"$(jget "$T/false.json" 'd["lines"][0]["offsets"][1]["symbol"]')" "false_pair+0x8"
check_eq "false: each offset from its own CPU" \
	"$(jget "$T/false.json" '[o["cpus"] for o in d["lines"][0]["offsets"]]')" "[[0], [1]]"
check_eq "false: one writer thread per offset" \
	"$(jget "$T/false.json" '[o["writer_threads"] for o in d["lines"][0]["offsets"]]')" "[1, 1]"
check_eq "false: 100 HITMs per offset" \
	"$(jget "$T/false.json" '[o["hitm"] for o in d["lines"][0]["offsets"]]')" "[100, 100]"
check_eq "false: the code is named per offset" \
	"$(jget "$T/false.json" '[o["code"][0]["symbol"] for o in d["lines"][0]["offsets"]]')" \
	"['hitm_false_writer_a', 'hitm_false_writer_b']"
check_eq "false: 200 samples of code per offset" \
	"$(jget "$T/false.json" '[o["code"][0]["samples"] for o in d["lines"][0]["offsets"]]')" "[200, 200]"
check_grep "false: file:line from debug info" 'hitm_sharing.c:[0-9]+' "$T/false.json"
"$HT" --replay "$T/false.txt" >"$T/false.plain" 2>&1
check_grep "false: plain report names variable and verdict" \
	"^$FP +[0-9]+ +200 .*false sharing +false_pair\+0x0" "$T/false.plain"
check_grep "false: plain report gives the fix" '^    fix: .*pad or align' "$T/false.plain"
check_grep "false: plain report lists offset +0x8" '^    \+0x8 +100 +100 +100 +1 +false_pair\+0x8 +hitm_false_writer_b' "$T/false.plain"

# 5. Non-HITM samples do not count as HITMs: 30 L1-hit and 30 snoop-hit
#    loads on false_pair count as loads only; 30 loads on a line never
#    written are not counted and are said so.
"$WL/hitm_gen" "$WL_OUT" false:100 nonhitm:30 >"$T/nh.txt"
"$HT" --replay "$T/nh.txt" -j >"$T/nh.json" 2>"$T/nh.err"
check_eq "non-HITM: HITMs stay 200" "$(jget "$T/nh.json" 'd["lines"][0]["hitm"]')" 200
check_eq "non-HITM: loads grow by 60" "$(jget "$T/nh.json" 'd["lines"][0]["loads"]')" 260
check_eq "non-HITM: still one line" "$(jget "$T/nh.json" 'len(d["lines"])')" 1
check_eq "non-HITM: still false sharing" "$(jget "$T/nh.json" 'd["lines"][0]["verdict"]')" "false sharing"
check_eq "non-HITM: 30 cold loads reported in JSON" "$(jget "$T/nh.json" 'd["skipped"]["cold_load"]')" 30
check_grep "non-HITM: the uncounted loads are said on stderr" '30 loads without HITM' "$T/nh.err"
"$WL/hitm_gen" "$WL_OUT" nonhitm:50 >"$T/only.txt"
"$HT" --replay "$T/only.txt" -j >"$T/only.json" 2>/dev/null
check_eq "only non-HITM loads: no line at all" "$(jget "$T/only.json" 'len(d["lines"])')" 0
kill "$WL_PID" 2>/dev/null; wait_wl

# 6. True sharing from a real run: one counter written from every CPU.
#    The generator spreads it on CPUs 0-3, remote HITMs on 2 and 3.
start_wl hitm_sharing true 2000000 60000
check "true workload printed its addresses" wait_ready
TC=$(awk '$2 == "true_counter" { print $3 }' "$WL_OUT")
"$WL/hitm_gen" "$WL_OUT" true:50 false:10 >"$T/true.txt"
"$HT" --replay "$T/true.txt" -j >"$T/true.json" 2>/dev/null
check_top_line true "$T/true.json" true_counter "$TC" "true sharing"
check_eq "true: 200 HITMs, 100 local and 100 remote" \
	"$(jget "$T/true.json" '[d["lines"][0][k] for k in ("hitm","hitm_local","hitm_remote")]')" "[200, 100, 100]"
check_eq "true: one offset, from CPUs 0-3" \
	"$(jget "$T/true.json" '[(o["offset"], o["cpus"]) for o in d["lines"][0]["offsets"]]')" "[(0, [0, 1, 2, 3])]"
check_eq "true: several writer threads" \
	"$(jget "$T/true.json" 'd["lines"][0]["offsets"][0]["writer_threads"]')" 2
check_eq "true: code is hitm_true_writer" \
	"$(jget "$T/true.json" 'd["lines"][0]["offsets"][0]["code"][0]["symbol"]')" "hitm_true_writer"
check_eq "true: the smaller false-sharing line ranks second" \
	"$(jget "$T/true.json" '[l["verdict"] for l in d["lines"]]')" "['true sharing', 'false sharing']"
"$HT" --replay "$T/true.txt" -j -n 1 >"$T/n1.json" 2>/dev/null
check_eq "-n 1: the top line only" "$(jget "$T/n1.json" '[l["symbol"] for l in d["lines"]]')" "['true_counter+0x0']"
check_eq "-n 1: the totals still cover every line" "$(jget "$T/n1.json" 'd["lines_with_hitm"]')" 2

# 7. A malloc'ed line is named by its mapping.
"$WL/hitm_gen" "$WL_OUT" heap:10 >"$T/heap.txt"
"$HT" --replay "$T/heap.txt" -j >"$T/heap.json" 2>/dev/null
check_eq "heap: no variable, mapping [heap]" \
	"$(jget "$T/heap.json" '(d["lines"][0]["symbol"], d["lines"][0]["mapping"])')" "(None, '[heap]')"
check_eq "heap: offsets 16 and 24, false sharing" \
	"$(jget "$T/heap.json" '([o["offset"] for o in d["lines"][0]["offsets"]], d["lines"][0]["verdict"])')" \
	"([16, 24], 'false sharing')"

# 7b. --svg: the lines with HITMs as a flame graph, process -> line ->
#     offset -> code, each code address's samples (loads + stores) on its
#     offset its width: the same numbers as the JSON of the same replay
"$WL/hitm_gen" "$WL_OUT" true:50 false:10 heap:10 >"$T/svg.txt"
"$HT" --replay "$T/svg.txt" -j --svg "$T/h.svg" >"$T/svg.json" 2>"$T/svg.err"
check_eq "--svg: exit 0, the JSON report still printed" "$?$(json_ok "$T/svg.json" && echo ok)" 0ok
check "--svg: the SVG is well-formed XML" xml_ok "$T/h.svg"
check_grep "--svg: the title says what, of which replay, in which unit" \
	"<text id=\"title\"[^>]*>hitmtop: loads and stores on the lines with HITMs, by line, offset and code of the replay of $T/svg.txt</text>" "$T/h.svg"
check_grep "--svg: the total is the samples counted" "Total $(jget "$T/svg.json" 'd["counted"]') samples;" "$T/h.svg"
check_eq "--svg: the root holds every sample counted, the process below it" \
	"$(svg_get "$T/h.svg" "([v for n, k, v, d in f if d == 0], [n for n, k, v, d in f if d == 1])")" \
	"($(jget "$T/svg.json" '[d["counted"]]'), ['pid $(awk 'NR == 1 { print $1 }' "$WL_OUT")'])"
check_eq "--svg: a frame per line, its samples those of the JSON" \
	"$(svg_get "$T/h.svg" "sorted((n[:n.index(' (line ')], v) for n, k, v, d in f if d == 2)")" \
	"$(jget "$T/svg.json" 'sorted((l["symbol"] or l["mapping"], l["loads"] + l["stores"]) for l in d["lines"])')"
check_eq "--svg: a frame per offset (its variable), above its line" \
	"$(svg_get "$T/h.svg" "sorted((n, v) for n, k, v, d in f if d == 3)")" \
	"$(jget "$T/svg.json" 'sorted(("+0x%x %s" % (o["offset"], o["symbol"] or "-"), sum(c["samples"] for c in o["code"])) for l in d["lines"] for o in l["offsets"])')"
check_eq "--svg: a frame per code address (function file:line), above its offset" \
	"$(svg_get "$T/h.svg" "sorted((n, v) for n, k, v, d in f if d == 4)")" \
	"$(jget "$T/svg.json" 'sorted(("%s %s" % (c["symbol"], c["source"]), c["samples"]) for l in d["lines"] for o in l["offsets"] for c in o["code"])')"
check_eq "--svg: false sharing reads as two offsets of one line, each under its own writer" \
	"$(svg_get "$T/h.svg" "sorted(n.split()[0] for n, k, v, d in f if d == 4 and n.startswith('hitm_false_writer'))")" \
	"['hitm_false_writer_a', 'hitm_false_writer_a', 'hitm_false_writer_b', 'hitm_false_writer_b']"
check_eq "--svg: code and variables are user frames, an offset without a variable unresolved" \
	"$(svg_get "$T/h.svg" "sorted(set((d, k) for n, k, v, d in f if d >= 2)), sorted(set(k for n, k, v, d in f if n.endswith(' -')))")" \
	"([(2, 2), (3, 2), (3, 6), (4, 2)], [6])"
check_rc "--svg with --load-only exits 2" 2 "$HT" --load-only --svg "$T/x.svg"
check_grep "--svg with --load-only: said why" '--load-only and --svg exclude each other' "$T/rc.err"
check_rc "an unwritable --svg exits 2" 2 "$HT" --replay "$T/svg.txt" --svg /nonexistent/dir/h.svg
check_grep "the unwritable --svg is named with the reason" \
	'--svg: cannot write /nonexistent/dir/h.svg: No such file or directory' "$T/rc.err"

# 8. Malformed lines: reported with their line numbers, skipped, no crash.
"$WL/hitm_gen" "$WL_OUT" comment true:5 malformed true:5 >"$T/bad.txt" 2>"$T/bad.lines"
"$HT" --replay "$T/bad.txt" -j >"$T/bad.json" 2>"$T/bad.err"
check_eq "malformed: exit 0, JSON parses" "$?$(json_ok "$T/bad.json" && echo ok)" 0ok
for n in $(sed 's/^malformed lines: //' "$T/bad.lines"); do
	check_grep "malformed: line $n named" "bad.txt:$n: malformed line skipped" "$T/bad.err"
done
check_eq "malformed: 5 lines counted in JSON" "$(jget "$T/bad.json" 'd["skipped"]["malformed_lines"]')" 5
check_eq "malformed: the good samples around them count (40 HITMs)" \
	"$(jget "$T/bad.json" 'd["lines"][0]["hitm"]')" 40
printf '0 1 2 3 4 5\n\x01\xff binary\n%s\n' "$(printf 'x%.0s' $(seq 1 5000))" >"$T/junk.txt"
check_rc "junk file: exit 0, no crash" 0 "$HT" --replay "$T/junk.txt"
check_grep "junk file: 3 malformed lines" 'junk.txt:3: malformed' "$T/rc.err"

# 9. stdin, closed pipe, empty file
check_eq "replay from stdin (-) gives the same JSON lines" \
	"$("$HT" --replay - -j <"$T/true.txt" 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["lines"]))')" 2
"$WL/hitm_gen" "$WL_OUT" true:20000 >"$T/big.txt"
"$HT" --replay "$T/big.txt" 2>"$T/pipe.err" | head -1 >/dev/null
check_eq "closed pipe: exit 0" "${PIPESTATUS[0]}" 0
check_nogrep "closed pipe: quiet" 'Broken pipe|rror' "$T/pipe.err"
: >"$T/empty.txt"
check_rc "empty file: exit 0" 0 "$HT" --replay "$T/empty.txt"
check_grep "empty file: said, not shown as 'no contention'" 'holds no sample' "$T/rc.err"

# 10. The process is gone: no variable names, the report says why.
kill "$WL_PID" 2>/dev/null; wait_wl
"$HT" --replay "$T/true.txt" -j >"$T/gone.json" 2>/dev/null
check_eq "exited process: symbol null, mapping [exited]" \
	"$(jget "$T/gone.json" '(d["lines"][0]["symbol"], d["lines"][0]["mapping"])')" "(None, '[exited]')"
check_eq "exited process: the verdict stands" "$(jget "$T/gone.json" 'd["lines"][0]["verdict"]')" "true sharing"

# 11. Bad usage: exit 2 naming the culprit
check_rc "missing replay file: exit 2" 2 "$HT" --replay "$T/nope.txt"
check_grep "missing replay file: named" 'nope.txt' "$T/rc.err"
check_rc "-n 0: exit 2" 2 "$HT" --replay "$T/true.txt" -n 0
check_rc "-n 12abc: exit 2" 2 "$HT" --replay "$T/true.txt" -n 12abc
check_rc "-i -5: exit 2" 2 "$HT" -i -5
check_rc "--replay with -p: exit 2" 2 "$HT" --replay "$T/true.txt" -p $$
check_rc "--replay with -i: exit 2" 2 "$HT" --replay "$T/true.txt" -i 1
check_rc "--record with --replay: exit 2" 2 "$HT" --replay "$T/true.txt" --record "$T/r.txt"
check_rc "unknown option: exit 2" 2 "$HT" --bogus
check_rc "-p of a missing process: exit 2" 2 "$HT" -p 999999999
check_rc "-C of a missing CPU: exit 2" 2 "$HT" -C 4095

# 12. Help: USAGE and EXAMPLES; the replay examples work as written
"$HT" --help >"$T/help" 2>&1
check_grep "--help has a USAGE line" '^USAGE: hitmtop' "$T/help"
check_grep "--help has EXAMPLES" '^EXAMPLES:' "$T/help"
cp "$T/true.txt" "$T/s.txt"
ex_ok=1
while read -r ex; do
	rc=0
	(cd "$T" && eval "$BIN/$ex" >/dev/null 2>&1) || rc=$?
	case "$ex" in
	*--replay*|*--load-only*) [ "$rc" = 0 ] || { ex_ok=0; echo "#   '$ex' exit $rc"; } ;;
	*) [ "$rc" = 3 ] || { ex_ok=0; echo "#   '$ex' exit $rc, want 3 (no PMU)"; } ;;
	esac
done < <(sed -n '/^EXAMPLES:/,/^$/p' "$T/help" | grep '^    hitmtop' | sed 's/^    //; s/ *#.*//')
check_eq "every EXAMPLES line runs (replay: 0; sampling: 3 here)" "$ex_ok" 1

# 13. The sampling path itself (open per CPU, attach, loop, interval
#     reports, detach) on a software event that the test-only variable
#     HITMTOP_TEST_SOFTWARE_EVENT puts in place of PEBS/IBS: cpu-clock
#     samples carry no data address, so each one is counted as skipped.
SW="env HITMTOP_TEST_SOFTWARE_EVENT=1 $HT"
start_wl hitm_sharing both 400000000 60000
busy=$WL_PID
start_wl hitm_sharing idle 0 60000
idle=$WL_PID
$SW -p "$busy" -j -i 0.5 -d 1.5 >"$T/sw.json" 2>"$T/sw.err"
check_eq "software event: exit 0" "$?" 0
check "software event: every line is one JSON document" \
	python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/sw.json"
check_ge "software event: interval reports, then the final one" "$(wc -l <"$T/sw.json")" 2
tail -1 "$T/sw.json" >"$T/sw.last"
check_eq "software event: a busy target is sampled, nothing counted without addresses" \
	"$(jget "$T/sw.last" 'd["samples"] > 0 and d["counted"] == 0 and d["skipped"]["no_addr"] == d["samples"] and d["source"] == "sampling"')" True
check_grep "software event: samples without address are said on stderr" 'had no user-space data address' "$T/sw.err"
$SW -p "$idle" -j -d 1 >"$T/swi.json" 2>/dev/null
check_eq "software event: -p of a sleeping process: not one sample" "$(jget "$T/swi.json" 'd["samples"]')" 0
$SW -p "$busy" -i 0.3 -d 1 >"$T/swp.txt" 2>/dev/null
check_grep "software event: plain report on a pipe" '^hitmtop [0-9:]+, [0-9.]+ s: [0-9]+ samples, 0 counted' "$T/swp.txt"
check_grep "software event: no line is not shown as a table" '^no cache line with a HITM sampled yet$' "$T/swp.txt"
$SW -p "$busy" -d 0.5 --record "$T/rec.txt" >/dev/null 2>&1
check_grep "--record writes the format header" '^# cpu pid tid ip addr data_src weight$' "$T/rec.txt"
check_rc "--record output replays" 0 "$HT" --replay "$T/rec.txt"
check_rc "--record to an unwritable path: exit 2" 2 $SW -d 0.5 --record /nonexistent/dir/r.txt
kill "$busy" "$idle" 2>/dev/null; wait_wl
# (3 s: time enough for the tool to attach on a loaded machine; 300 ms was
# not, the target gone before "-p" was read)
start_wl hitm_sharing idle 0 3000
$SW -p "$WL_PID" >/dev/null 2>"$T/swe.err"
check_grep "software event: stops when the target exits" 'every traced process has exited' "$T/swe.err"
timeout 60 $SW -i 0.2 2>/dev/null | head -1 >/dev/null
check_eq "software event: a closed pipe ends it quietly (exit 0)" "${PIPESTATUS[0]}" 0
check_eq "software event: no program left behind" "$(bpf_prog_count hitm_sample)" 0
check_clean_exit "SIGINT: exit 0, no BPF program, map or link left" INT $SW -i 0.2
check_clean_exit "SIGTERM: exit 0, no BPF program, map or link left" TERM $SW -j
check_clean_exit "-d expiry: exit 0, no BPF program, map or link left" none $SW -d 1
