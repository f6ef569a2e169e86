# The rules of the house (docs/ARCHITECTURE.md), checked by
# scripts/check_layout.py: tools/lib/ includes no tool's header, each of its
# modules serves two tools or more, each tool's main() is 60 lines at most,
# only tools/lib/ includes blazesym.h, no circle among the library's
# modules or the symbolizer's files (by includes and by calls).
# Then the checker itself, on copies of the tree that break each rule.
check_layout() { python3 "$ROOT/scripts/check_layout.py" "$1" >"$T/layout.out" 2>&1; }

if check_layout "$ROOT"; then pass "the tree keeps the rules of the house"
else fail "the tree breaks the rules of the house:"; sed 's/^/#   /' "$T/layout.out"; fi

# a copy of what the checker reads
copy_tree() {
	rm -rf "$T/tree" && mkdir -p "$T/tree" && cp -r "$ROOT/tools" "$ROOT/bpf" "$ROOT/blazesym-shim" "$T/tree/"
}

copy_tree
echo '#include "model.h"' >>"$T/tree/tools/lib/json.c"
check_layout "$T/tree"
check_grep "a shared module that includes a tool's header is named" \
	'^tools/lib/json.c includes model.h, a header of (hitmtop|schedsilence)$' "$T/layout.out"

copy_tree
printf '#ifndef ONLY_ONE_H\n#define ONLY_ONE_H\nint only_one(void);\n#endif\n' >"$T/tree/tools/lib/only_one.h"
printf '#include "only_one.h"\nint only_one(void) { return 1; }\n' >"$T/tree/tools/lib/only_one.c"
echo '#include "only_one.h"' >>"$T/tree/tools/wakers/wakers.c"
check_layout "$T/tree"
check_grep "a shared module that serves one tool is named" \
	'^tools/lib/only_one is used by wakers only' "$T/layout.out"

copy_tree
python3 - "$T/tree/tools/offcputime/offcputime.c" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
i = s.index("\nint main(")
j = s.index("{\n", i) + 2
open(p, "w").write(s[:j] + "\t;\n" * 61 + s[j:])
PY
check_layout "$T/tree"
check_grep "a main() over 60 lines is named with its length" \
	'^tools/offcputime/offcputime.c: main\(\) is [0-9]+ lines, more than 60$' "$T/layout.out"

copy_tree
echo '#include "blazesym.h"' >>"$T/tree/tools/wakers/wakers.c"
check_layout "$T/tree"
check_grep "a tool that includes the symbolizer's API is named" \
	'^tools/wakers/wakers.c includes blazesym.h' "$T/layout.out"

# circles: by a call alone (procfs calls a function of opts, which
# includes procfs.h), by includes alone, and in the symbolizer
copy_tree
printf '\nvoid procfs_circle(void) { common_opts_finish(0); }\n' >>"$T/tree/tools/lib/procfs.c"
check_layout "$T/tree"
check_grep "a circle made by a call is named, module by module" \
	'^tools/lib: a circle: .*procfs -> opts( |$)' "$T/layout.out"
copy_tree
echo '#include "msg.h"' >>"$T/tree/tools/lib/escape.h"
check_layout "$T/tree"
check_grep "a circle made by an include is named" \
	'^tools/lib: a circle: escape -> msg -> escape$' "$T/layout.out"
copy_tree
printf '\nvoid util_circle(void) { bzs_elf_read_build_id(0, 0, 0); }\n' >>"$T/tree/blazesym-shim/util.c"
check_layout "$T/tree"
check_grep "a circle in the symbolizer is named" \
	'^blazesym-shim: a circle: .*util' "$T/layout.out"
# a call in a comment or a string is no call
copy_tree
printf '\n/* common_opts_finish() */\nconst char *procfs_text = "common_opts_finish()";\n' >>"$T/tree/tools/lib/procfs.c"
check_layout "$T/tree"
check_nogrep "a call in a comment or a string makes no circle" 'circle' "$T/layout.out"

# The tool tests run the tools of $BIN (build-asan/bin under make
# test-asan), never the tree's own copies: test_hotcheck, test_pfwatch,
# test_schedsilence, test_pprof and test_metrics ran $ROOT/TOOL, so the
# sanitizer phase never ran hotcheck, pfwatch or schedsilence under ASan
# (only test_install's checks of the tree's build name $ROOT/TOOL)
grep -nE '\$\{?ROOT\}?/(offcputime|syswatch|wakers|pfwatch|schedsilence|hitmtop|hotcheck)\b' \
	"$ROOT"/tests/tools/test_*.sh "$ROOT"/tests/real/*.sh "$ROOT"/tests/lib.sh |
	grep -v '/test_install.sh:' >"$T/rootbins"
check_nogrep "the tool tests run \$BIN's tools, not \$ROOT's" . "$T/rootbins"
