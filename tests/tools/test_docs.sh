# The docs against the tools (sourced by tests/run.sh):
# - every option in the Options table of docs/X.md exists in X --help, and
#   every option of X --help is named in that Options section (argp's own
#   --help, --usage and --version excepted: docs/CLI.md covers them);
# - every EXAMPLES line of X --help, and every per-tool line of README.md,
#   runs as written (placeholder PIDs/TIDs replaced by a live workload's):
#   it is stopped with SIGINT once it says it is tracing, and must exit 0
#   or 1 (3 only where the machine lacks what the tool documents it needs:
#   hitmtop's PEBS/IBS), never 2 (usage error) nor by a signal;
# - the man pages build (make man), render with man -l, and have NAME and
#   OPTIONS sections, without roff warnings (line filling aside).
TOOLS_ALL="offcputime syswatch wakers pfwatch schedsilence hitmtop hotcheck"
TOOLS=
for t in $TOOLS_ALL; do [ -x "$BIN/$t" ] && TOOLS="$TOOLS $t"; done
check "all seven tools are built" test "$(echo $TOOLS | wc -w)" = 7

# option_diff TOOL: one line per mismatch between docs/TOOL.md and --help
option_diff() {
	"$BIN/$1" --help >"$T/$1.help" 2>&1
	python3 - "$1" "$T/$1.help" "$ROOT/docs/$1.md" <<'EOF'
import re, sys
tool, helpf, docf = sys.argv[1:4]
builtin = {"help", "usage", "version"}
help_long, help_short = set(), set()
for ln in open(helpf):
    m = re.match(r"^\s{2,6}(?:-(\S), )?\s*--([a-z][a-z0-9-]*)", ln)
    if m:
        if m.group(1):
            help_short.add(m.group(1))
        help_long.add(m.group(2))
doc = open(docf).read()
m = re.search(r"^## Options\s*$(.*?)(?=^## |\Z)", doc, re.S | re.M)
if not m:
    print("docs/%s.md has no '## Options' section" % tool)
    sys.exit(0)
sec = m.group(1)
doc_long, doc_short = set(), set()
for ln in sec.splitlines():
    if not ln.startswith("|"):
        continue
    cell = ln.strip().strip("|").split("|")[0]
    doc_long |= set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", cell))
    doc_short |= set(re.findall(r"(?<![\w-])-([A-Za-z?])\b", cell))
named = set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", sec))
for o in sorted(doc_long - help_long - builtin):
    print("docs/%s.md documents --%s, not in --help" % (tool, o))
for o in sorted(doc_short - help_short - {"h", "V", "?"}):
    print("docs/%s.md documents -%s, not in --help" % (tool, o))
for o in sorted(help_long - named - builtin):
    print("--help of %s has --%s, not in docs/%s.md Options" % (tool, o, tool))
for o in sorted(help_short - doc_short - {"V", "?"}):
    print("--help of %s has -%s, not in docs/%s.md Options table" % (tool, o, tool))
EOF
}

for t in $TOOLS; do
	if [ ! -f "$ROOT/docs/$t.md" ]; then
		fail "docs/$t.md exists"
		continue
	fi
	option_diff "$t" >"$T/$t.diff"
	if [ -s "$T/$t.diff" ]; then
		fail "docs/$t.md and $t --help name the same options ($(wc -l <"$T/$t.diff") mismatches)"
		sed 's/^/#   /' "$T/$t.diff"
	else
		pass "docs/$t.md and $t --help name the same options"
	fi
done

# A live target for the placeholder PIDs and TIDs: a process with two
# threads that block in turn (nanosleep), for as long as the test lasts
start_wl offcpu_blocker 100000 20 0
TPID=$WL_PID
TTID=$(ls /proc/"$TPID"/task | sort -n | tail -1)
check "target workload runs with two threads" test "$(ls /proc/"$TPID"/task 2>/dev/null | wc -l)" -ge 2

# run_example LINE: runs a documented command line in $T/ex, with the tool
# names mapped to $BIN, -p/-t numbers to the workload; SIGINT once it
# says it is tracing (or after 10 s); EX_RC is its exit status
run_example() {
	local line=$1 cmd p i t
	cmd=$(printf '%s\n' "$line" | sed -E \
		-e 's/[[:space:]]+#.*$//' \
		-e "s/(-p|--pid)[ =][0-9,]+/\\1 $TPID/g" \
		-e "s/(-t|--tid)[ =][0-9,]+/\\1 $TPID,$TTID/g")
	for t in $TOOLS_ALL; do
		cmd=$(printf '%s\n' "$cmd" | sed -E "s#(^|[[:space:];|])(\\./)?$t( |\$)#\\1$BIN/$t\\3#")
	done
	EX_CMD=$cmd
	# emptied here, not by the child's redirection: a child slow to start
	# (ASan, a busy machine) left the last example's "tracing" line for
	# the wait below to find, and got its SIGINT before it ran (exit 130)
	: >"$T/ex.out"
	: >"$T/ex.err"
	(cd "$T/ex" && exec bash -c "exec $cmd" >"$T/ex.out" 2>"$T/ex.err" </dev/null) &
	p=$!
	for i in $(seq 1 1000); do
		kill -0 "$p" 2>/dev/null || break
		grep -Eq 'tracing|watching|sampling' "$T/ex.err" 2>/dev/null && { sleep 0.3; break; }
		sleep 0.01
	done
	kill -INT "$p" 2>/dev/null
	for i in $(seq 1 1000); do kill -0 "$p" 2>/dev/null || break; sleep 0.01; done
	kill -9 "$p" 2>/dev/null
	wait "$p"
	EX_RC=$?
}

# check_example WHERE LINE
check_example() {
	local where=$1 line=$2 ok=0
	run_example "$line"
	case $EX_RC in
	0 | 1) ok=1 ;;
	3) [[ "$EX_CMD" == *hitmtop* ]] && grep -q 'PEBS/IBS' "$T/ex.err" && ok=1 ;;
	esac
	if [ "$ok" = 1 ]; then
		pass "$where: '$line' runs (exit $EX_RC)"
	else
		fail "$where: '$line' (exit $EX_RC; ran: $EX_CMD)"
		head -3 "$T/ex.err" | sed 's/^/#   /'
	fi
}

mkdir -p "$T/ex"
# hitmtop's --replay examples read the file its --record example writes;
# without PEBS/IBS nothing is recorded: an empty stream stands in for it
printf '# cpu pid tid ip addr data_src weight\n' >"$T/ex/s.txt.empty"
# hotcheck --correlate's example reads the slow requests an application
# logs to slow.txt while it runs: here none
: >"$T/ex/slow.txt"
for t in $TOOLS; do
	"$BIN/$t" --help | awk '/^EXAMPLES:/ { on = 1; next } on && /^[[:space:]]*$/ { exit } on' \
		>"$T/$t.examples"
	check "$t --help has EXAMPLES lines" test -s "$T/$t.examples"
	while IFS= read -r line; do
		line=${line#"${line%%[![:space:]]*}"}
		[ -n "$line" ] || continue
		[[ "$line" == *--replay* ]] && [ ! -s "$T/ex/s.txt" ] && cp "$T/ex/s.txt.empty" "$T/ex/s.txt"
		check_example "$t EXAMPLES" "$line"
	done <"$T/$t.examples"
done

# README: the per-tool lines of its "One example per tool" block
awk '/^## One example per tool/ { sec = 1 } sec && /^```/ { if (on) exit; on = 1; next } on' \
	"$ROOT/README.md" >"$T/readme.examples"
check_eq "README has one example line per tool" "$(grep -cE '^\./' "$T/readme.examples")" 7
while IFS= read -r line; do
	[[ "$line" == ./* ]] || continue
	check_example "README" "$line"
done <"$T/readme.examples"
kill -9 "$TPID" 2>/dev/null

# man pages: built from docs/, rendered, with NAME and OPTIONS
make -s -C "$ROOT" man OUT="$BUILD" >"$T/man.out" 2>&1
check "make man succeeds" test $? = 0
for t in $TOOLS; do
	m=$BUILD/man/$t.8
	if [ ! -s "$m" ]; then
		fail "man page $t.8 built"
		continue
	fi
	MANWIDTH=80 man -l "$m" >"$T/$t.man" 2>"$T/$t.manerr"
	check "man -l $t.8 renders" test -s "$T/$t.man"
	check_grep "man page $t.8 has NAME '$t - ...'" "^ +$t +- " "$T/$t.man"
	check_grep "man page $t.8 has a NAME section" '^NAME$' "$T/$t.man"
	check_grep "man page $t.8 has an OPTIONS section" '^OPTIONS$' "$T/$t.man"
	# every warning but line filling (a long word in a narrow column)
	groff -man -ww -z "$m" 2>&1 | grep -Ev 'cannot (adjust|break) line' >"$T/$t.groff"
	check_nogrep "man page $t.8 renders without roff warnings" '.' "$T/$t.groff"
done

# docs/diagnosis.md's findings, checked on its workload: a 3 s run of
# diag_latency with the intruder and the lock held under I/O (2 flushes,
# at 1.25 s and 2.25 s, while diag_hot runs), the tools attached before
# the workload is released.  At the highest priority, in an autogroup of
# its own (as test_hotcheck runs it): with both CPUs busy, diag_hot must
# still be asking for the lock while the flusher holds it
WL_GOFILE=$(mktemp -u "$T/go.XXXXXX")
WL_GO=$WL_GOFILE start_cmd nice -n -20 setsid "$WL/diag_latency" 1 3 1 1 3
read -r DPID DHOT DSTATS DFLUSH <"$WL_OUT"
echo -20 >/proc/"$DPID"/autogroup
"$BIN/wakers" -t "$DHOT" -j -d 30 >"$T/dg.wk" 2>"$T/dg.wk.err" &
wk=$!
# (--state S: the blocks on the lock; a preemption by the intruder while
# in book_lock_wait would be a runnable wait, counted apart)
"$BIN/offcputime" -t "$DHOT" --state S -j -d 30 >"$T/dg.oc" 2>"$T/dg.oc.err" &
oc=$!
# (ready: until each says it traces, however long a busy machine makes
# that: a workload released before would run untraced)
ready "$T/dg.wk.err" "$wk"
ready "$T/dg.oc.err" "$oc"
touch "$WL_GOFILE"
wait "$wk" "$oc"
wait_wl
check "diagnosis: wakers JSON parses" json_ok "$T/dg.wk"
check "diagnosis: offcputime JSON parses" json_ok "$T/dg.oc"
check_eq "diagnosis: wakers: diag_flusher woke diag_hot twice, from book_unlock in flush_journal" \
	"$(json_get "$T/dg.wk" "sum(w['count'] for w in d['wakeups'] if w['waker']['comm'] == 'diag_flusher' and w['user_stack'][-2:] == ['flush_journal', 'book_unlock'])")" 2
check_eq "diagnosis: offcputime: diag_hot blocked twice in book_lock_wait <- book_lock <- handle_request" \
	"$(json_get "$T/dg.oc" "sum(s['count'] for s in d['stacks'] if s['user_stack'][-3:] == ['handle_request', 'book_lock', 'book_lock_wait'])")" 2

# CLI.md: -h and --help (with USAGE and EXAMPLES), -V and --version, exit 0
for t in $TOOLS; do
	check "$t -h exits 0 with USAGE and EXAMPLES" sh -c "'$BIN/$t' -h | grep -q USAGE && '$BIN/$t' -h | grep -q EXAMPLES"
	check "$t -V names the tool and its version" sh -c "'$BIN/$t' -V | grep -Eq '^$t [0-9]'"
done

# Pictures: every ![...](FILE) of README.md and docs/*.md (and <img
# src="FILE">) is a file there, a whole PNG (png_size: signature, IHDR,
# IEND) of at most 300 kB; every file of docs/img/ is shown by a page.
# picture_problems DIR: one line per problem of the tree at DIR
picture_problems() {
	local dir=$1 page ref f size i=0 files
	: >"$T/pics.refs"
	for page in "$dir"/README.md "$dir"/docs/*.md; do
		grep -oE '!\[[^]]*\]\([^) ]+\)|<img [^>]*src="[^"]+"' "$page" |
			sed -E 's/^!\[[^]]*\]\(([^) ]+)\)$/\1/; s/^<img .*src="([^"]+)"$/\1/' |
			while IFS= read -r ref; do
				printf '%s\t%s\t%s\n' "${page#"$dir"/}" "$ref" "$(realpath -m "$(dirname "$page")/$ref")"
			done >>"$T/pics.refs"
	done
	# one png_size for them all, line for line
	mapfile -t files < <(cut -f3 "$T/pics.refs")
	[ ${#files[@]} = 0 ] || png_size "${files[@]}" >"$T/pics.sizes"
	while IFS=$'\t' read -r page ref f; do
		i=$((i + 1))
		size=$(sed -n "${i}p" "$T/pics.sizes")
		if [ ! -f "$f" ]; then
			echo "$page: $ref: no such file"
		elif [ "$size" = - ]; then
			echo "$page: $ref: not a PNG"
		elif [ "$(stat -c %s "$f")" -gt 307200 ]; then
			echo "$page: $ref: $(stat -c %s "$f") bytes, more than 300 kB"
		fi
	done <"$T/pics.refs"
	for f in "$dir"/docs/img/*; do
		[ -e "$f" ] || continue
		cut -f3 "$T/pics.refs" | grep -qxF "$(realpath -m "$f")" ||
			echo "docs/img/${f##*/}: shown by no page"
	done
}
picture_problems "$ROOT" >"$T/pics.out"
if [ -s "$T/pics.out" ]; then
	fail "the pictures of the docs are whole PNG files, each shown ($(wc -l <"$T/pics.out") problems)"
	sed 's/^/#   /' "$T/pics.out"
else
	pass "the pictures of the docs are whole PNG files, each shown"
fi
for p in README offcputime wakers pfwatch syswatch hotcheck hitmtop; do
	f=$ROOT/docs/$p.md
	[ "$p" = README ] && f=$ROOT/README.md
	check_grep "$p's page shows a flame graph of a real run" '^!\[[^]]+\]\((docs/)?img/[a-z]+\.png\)$' "$f"
done
# the check itself, on a copy: a link to no file, a file that is no PNG
# (a PNG cut short), a picture no page shows
rm -rf "$T/pt" && mkdir -p "$T/pt/docs/img"
cp "$ROOT/README.md" "$T/pt/" && cp "$ROOT"/docs/*.md "$T/pt/docs/" && cp "$ROOT"/docs/img/* "$T/pt/docs/img/"
printf '\n![gone](img/gone.png)\n' >>"$T/pt/docs/wakers.md"
head -c 2000 "$ROOT/docs/img/offcputime.png" >"$T/pt/docs/img/offcputime.png"
cp "$ROOT/docs/img/wakers.png" "$T/pt/docs/img/unshown.png"
picture_problems "$T/pt" >"$T/pics.bad"
check_grep "a link to a missing picture is named" '^docs/wakers.md: img/gone.png: no such file$' "$T/pics.bad"
check_grep "a picture cut short is named" '^README.md: docs/img/offcputime.png: not a PNG$' "$T/pics.bad"
check_grep "a picture no page shows is named" '^docs/img/unshown.png: shown by no page$' "$T/pics.bad"
