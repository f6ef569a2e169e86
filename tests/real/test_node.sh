# Node with --perf-basic-prof (tests/real/jsfaults.js): the JavaScript
# function that takes the page faults, named by the map V8 writes to
# /tmp/perf-PID.map, is the leaf of pfwatch's user stacks.
source "$ROOT/tests/real/real.sh"

node_main() {
	need_cmds nodejs node || return 0
	local R=20 MB=4
	WL_GOFILE=$(mktemp -u "$T/go.XXXXXX")
	# (from $T: V8 writes its isolate-*.log files in the working directory)
	WL_GO=$WL_GOFILE start_cmd env -C "$T" node --perf-basic-prof "$ROOT/tests/real/jsfaults.js" "$R" "$MB"
	NP=$WL_PID
	start_bg pf 'tracing' "$BIN/pfwatch" -p "$NP" -j; PF=$BG_PID
	touch "$WL_GOFILE"
	wait_line "$WL_OUT" '^done'
	check_eq "node ran its $R rounds" "$(sed -n 's/^done //p' "$WL_OUT")" "$R"
	stop_bg "$PF"; check_eq "pfwatch: exit 0" "$BG_RC" 0
	kill "$NP" 2>/dev/null
	wait "$NP" 2>/dev/null
	check "node wrote its perf map" test -s "/tmp/perf-$NP.map"
	# the names of jsTouchPages' code in the map: "JS:*jsTouchPages FILE:L:C"
	# (optimized), "JS:^..." (baseline), "JS:~..." (interpreted)
	grep -E '^[0-9a-f]+ [0-9a-f]+ JS:[*^~]?jsTouchPages ' "/tmp/perf-$NP.map" |
		cut -d' ' -f3- | sort -u >"$T/js.names"
	check_ge "the map names jsTouchPages' code" "$(wc -l <"$T/js.names")" 1
	json_get "$T/pf.out" "'\n'.join('%d\t%s' % (f['count'], f['user_stack'][-1]) for f in d['faults'] if f['mode'] == 'user' and f['user_stack'])" \
		>"$T/pf.leaves"
	F=$(awk -F'\t' 'NR == FNR { n[$0] = 1; next } ($2 in n) { s += $1 } END { print s + 0 }' "$T/js.names" "$T/pf.leaves")
	check_ge "pfwatch: faults whose leaf is jsTouchPages, named as the map names it" "$F" 1
	if [ "$F" -le $((R * MB * 256)) ]; then
		pass "pfwatch: at most one fault a page jsTouchPages touched ($F <= $((R * MB * 256)))"
	else
		fail "pfwatch: at most one fault a page jsTouchPages touched (got $F, want <= $((R * MB * 256)))"
	fi
	rm -f "/tmp/perf-$NP.map"
}
node_main
