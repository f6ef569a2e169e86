# Output that cannot be written is never silent, and a reader that is gone
# stops a streaming tool (docs/RELIABILITY.md, "Output"): every tool with
# stdout on /dev/full or closed, plain and JSON, exits 2 with one line
# naming stdout and the error; hitmtop's --record file holds the record
# only, whatever fds it was started with, and a record that cannot be
# written exits 2; syswatch --slower-than and hitmtop -i end on their own,
# quietly, soon after their reader exits.
TOOLS="offcputime syswatch wakers pfwatch schedsilence hitmtop hotcheck"
CPU=1		# schedsilence's CPU

# one_line_naming FILE REGEX: exactly one line of FILE mentions stdout, and
# it matches REGEX
one_line_naming() {
	[ "$(grep -c 'stdout' "$1")" = 1 ] && grep -Eq -- "$2" "$1"
}

# ---- 1. stdout on /dev/full and closed, plain and JSON, every tool: the
#         four runs of a tool at once (1 s each)
for tool in $TOOLS; do
	tool_cmd "$tool"
	pids=()
	for mode in plain json; do
		opt=; [ $mode = json ] && opt=-j
		"${CMD[@]}" $opt -d 1 >/dev/full 2>"$T/full.$mode.err" &
		pids+=($!)
		"${CMD[@]}" $opt -d 1 >&- 2>"$T/closed.$mode.err" &
		pids+=($!)
	done
	rcs=()
	for p in "${pids[@]}"; do wait "$p"; rcs+=($?); done
	i=0
	for mode in plain json; do
		for how in full closed; do
			rc=${rcs[i]}; i=$((i + 1))
			err=$T/$how.$mode.err
			case $how in
			full) what="stdout on /dev/full"; re='cannot write to stdout: No space left on device' ;;
			closed) what="stdout closed"; re='cannot write to stdout: Bad file descriptor' ;;
			esac
			check_eq "$tool ($mode), $what: exit 2" "$rc" 2
			if one_line_naming "$err" "$re"; then
				pass "$tool ($mode), $what: one line names stdout and the error"
			else
				fail "$tool ($mode), $what: want one line /$re/"
				sed 's/^/#   /' "$err" | head -5
			fi
		done
	done
done

# ---- 2. hitmtop --record: the record file holds the record only, with
#         stdout or stderr closed at start; a record that cannot be
#         written exits 2 and says so, stdout keeping the document only
tool_cmd hitmtop
# rec_only FILE: the header, then sample lines (7 fields) only
rec_only() {
	head -1 "$1" | grep -q '^# hitmtop samples' &&
		awk '!/^#/ && NF != 7 { bad = 1 } END { exit bad }' "$1"
}
"${CMD[@]}" -d 1 --record "$T/rec1.txt" >&- 2>"$T/rec1.err"
rc=$?
check_eq "hitmtop --record FILE, stdout closed: exit 2" "$rc" 2
check "hitmtop --record FILE, stdout closed: the file holds the record only" rec_only "$T/rec1.txt"
check_nogrep "... no report in it" 'HITMs|no cache line' "$T/rec1.txt"
check "... the report's failure is said" one_line_naming "$T/rec1.err" \
	'cannot write to stdout: Bad file descriptor'
"${CMD[@]}" -d 1 --record "$T/rec2.txt" >"$T/rec2.out" 2>&-
rc=$?
check_eq "hitmtop --record FILE, stderr closed: exit 0" "$rc" 0
check "hitmtop --record FILE, stderr closed: the file holds the record only" rec_only "$T/rec2.txt"
check_nogrep "... no message in it" 'hitmtop:|sampling' "$T/rec2.txt"
check_grep "... the report on stdout" 'samples, .* counted' "$T/rec2.out"
check_rc "hitmtop --record /dev/full: exit 2" 2 "${CMD[@]}" -d 1 --record /dev/full
check_eq "... said once, naming the file and the error" \
	"$(grep -c -- '--record: cannot write /dev/full: No space left on device' "$T/rc.err")" 1
check_grep "... the report is still printed" 'samples, .* counted' "$T/rc.out"
check_rc "hitmtop -j --record /dev/full: exit 2" 2 "${CMD[@]}" -j -d 1 --record /dev/full
check "... stdout holds the JSON document only" json_ok "$T/rc.out"
check_grep "... the failure is on stderr" '--record: cannot write /dev/full' "$T/rc.err"

# ---- 3. Streaming modes: the reader goes, the tool follows (quietly, its
#         exit status that of the run), well before the 20 s guard, however long it was
#         asked to run; timeout guards against a tool that does not end.

# stream READER CMD...: runs CMD | READER (head -1, or true: gone at once);
# leaves the tool's exit status in S_RC, its stderr in $T/st.err and the
# seconds from the reader's exit to the tool's in S_LAG
stream() {
	local reader=$1; shift
	rm -f "$T/st.rc" "$T/st.end" "$T/st.head"
	{ timeout -s KILL 20 "$@" 2>"$T/st.err"; echo $? >"$T/st.rc"; date +%s.%N >"$T/st.end"; } |
		{ if [ "$reader" = head ]; then head -1 >"$T/st.first"; else : >"$T/st.first"; fi
		  date +%s.%N >"$T/st.head"; }
	S_RC=$(cat "$T/st.rc")
	S_LAG=$(awk -v a="$(cat "$T/st.head")" -v b="$(cat "$T/st.end")" 'BEGIN { printf "%.1f", b - a }')
}
# stream_check DESC WANT_RC READER CMD...
stream_check() {
	local d=$1 want=$2; shift 2
	stream "$@"
	check_eq "$d: exit $want" "$S_RC" "$want"
	# (a generous bound, well under the guard's 20 s and the tool's own
	# run: a tool that does not follow its reader runs into the guard)
	if awk -v l="$S_LAG" 'BEGIN { exit !(l < 15) }'; then pass "$d: ends ${S_LAG} s after its reader"
	else fail "$d: ends ${S_LAG} s after its reader (want < 15 s)"; fi
	check_nogrep "$d: says nothing about it" 'pipe|EPIPE|write|stdout' "$T/st.err"
}

# a thread that makes a 2 ms nanosleep after another, for 200 s
start_wl syswatch_calls 0 0 0 100000 2
SLOW=$WL_PID
stream_check "syswatch --slower-than 1 | head -1" 0 head "$BIN/syswatch" -p "$SLOW" --slower-than 1
check_grep "... its first line was the header" '^TIME +TID +COMM' "$T/st.first"
stream_check "syswatch --check --slower-than 1 | head -1" 1 head "$BIN/syswatch" --check -p "$SLOW" --slower-than 1
# no call is that slow: nothing is ever written, the reader's exit is seen
stream_check "syswatch --slower-than 1000000 | true (nothing printed yet)" 0 true \
	"$BIN/syswatch" -p "$SLOW" --slower-than 1000000
# the first report after 6 s; the reader gone after its first line
stream_check "hitmtop -i 6 | head -1" 0 head "${CMD[@]}" -i 6
check_grep "... its first line was the report's" '^hitmtop .* samples' "$T/st.first"
stream_check "hitmtop -j -i 6 | head -1" 0 head "${CMD[@]}" -j -i 6
stream_check "hitmtop -i 10 | true" 0 true "${CMD[@]}" -i 10

# a streaming mode whose output fails stops at once, exit 2, said once
check_rc "syswatch --slower-than 1 >/dev/full: exit 2" 2 \
	sh -c 'exec "$@" >/dev/full' sh timeout -s KILL 20 "$BIN/syswatch" -p "$SLOW" --slower-than 1
check "... once, naming stdout and the error" one_line_naming "$T/rc.err" \
	'cannot write to stdout: No space left on device'
kill "$SLOW" 2>/dev/null
wait_wl
