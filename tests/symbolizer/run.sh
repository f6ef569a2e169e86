#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Symbolizer scenarios that need real processes, a compiler and objcopy:
#   separate debug files (.gnu_debuglink with CRC, build-id under a debug
#   root), file:line, a deleted and a replaced binary, a process in another
#   mount namespace (map_files and /proc/PID/root), perf maps (also from
#   inside a PID + mount namespace).
# Output is TAP-like ("ok - ..." / "not ok - ..."); exit 1 if any failed.
#   tests/symbolizer/run.sh            (root needed for the namespace cases)
# Environment: CC (default cc), SYM_TMP (work directory, default mktemp -d).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-cc}
T=${SYM_TMP:-$(mktemp -d /tmp/bzs-symtest.XXXXXX)}
fails=0
pids=()

cleanup() {
	for p in "${pids[@]}"; do pkill -KILL -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	umount "$T/nsmnt" 2>/dev/null
	[ -z "${SYM_TMP:-}" ] && rm -rf "$T"
}
trap cleanup EXIT

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fails=$((fails + 1)); }
check() { # check DESC GOT PATTERN
	if [[ "$2" == $3 ]]; then ok "$1"; else notok "$1"; echo "#   got: $2"; echo "#   want: $3"; fi
}

cflags="-O2 -g -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -I$root/blazesym-shim"
$cc $cflags -o "$T/symcheck" "$root/tests/symbolizer/symcheck.c" "$root"/blazesym-shim/*.c \
	-lelf -ldw -lz -lpthread -liberty || { echo "not ok - build symcheck"; exit 1; }
$cc -O1 -g -Wl,--build-id -o "$T/prog" "$root/tests/symbolizer/prog_target.c" ||
	{ echo "not ok - build prog_target"; exit 1; }
line_alpha=$(grep -n LINE_ALPHA "$root/tests/symbolizer/prog_target.c" | cut -d: -f1)

# start PROG [ARGS...]: run it in the background, wait for its address line.
# Sets $pid, $alpha, $beta, $jit.
start() {
	local out="$T/out.$RANDOM"
	"$@" >"$out" 2>&1 &
	pid=$!
	pids+=("$pid")
	for _ in $(seq 100); do grep -q alpha= "$out" 2>/dev/null && break; sleep 0.05; done
	alpha=$(sed -n 's/.*alpha=\(0x[0-9a-f]*\).*/\1/p' "$out")
	beta=$(sed -n 's/.*beta=\(0x[0-9a-f]*\).*/\1/p' "$out")
	jit=$(sed -n 's/.*jit=\(0x[0-9a-f]*\).*/\1/p' "$out")
}
stop() { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
sym() { "$T/symcheck" "$@"; }

# ---- plain, with file:line ----
start "$T/prog"
check "plain binary: static function" "$(sym "$pid" "$alpha")" "target_alpha|$T/prog|success|*"
check "plain binary: file:line" "$(sym -c "$pid" "$alpha")" \
	"target_alpha|*|success|prog_target.c:*"
got=$(sym -c "$pid" $((alpha + 0)) | cut -d'|' -f4)
[[ "$got" =~ prog_target.c:([0-9]+) ]] && l=${BASH_REMATCH[1]} || l=0
if [ "$l" -ge $((line_alpha - 4)) ] && [ "$l" -le "$line_alpha" ]; then
	ok "file:line of target_alpha near line $line_alpha ($got)"
else notok "file:line of target_alpha near line $line_alpha ($got)"; fi
stop

# ---- .gnu_debuglink: stripped binary, debug file in DIR/.debug/ ----
mkdir -p "$T/dl/.debug"
objcopy --only-keep-debug "$T/prog" "$T/dl/.debug/prog.debug"
objcopy --strip-all --add-gnu-debuglink="$T/dl/.debug/prog.debug" "$T/prog" "$T/dl/prog"
start "$T/dl/prog"
check "stripped, no debug_syms: not found" "$(sym "$pid" "$alpha")" "-|$T/dl/prog|*|*"
check "stripped + .gnu_debuglink (DIR/.debug/)" "$(sym -d "$pid" "$alpha")" \
	"target_alpha|$T/dl/prog|success|*"
check "debuglink + code_info" "$(sym -d -c "$pid" "$beta")" \
	"target_beta|*|success|prog_target.c:*"
stop
# a debug file whose CRC does not match is refused
cp "$T/dl/.debug/prog.debug" "$T/dl/.debug/prog.debug.orig"
printf 'x' >>"$T/dl/.debug/prog.debug"
start "$T/dl/prog"
check "debuglink with a wrong CRC: refused" "$(sym -d "$pid" "$alpha")" "-|*"
stop
mv "$T/dl/.debug/prog.debug.orig" "$T/dl/.debug/prog.debug"

# ---- build-id under BLAZESYM_SHIM_DEBUG_DIRS ----
mkdir -p "$T/bid"
objcopy --strip-all "$T/prog" "$T/bid/prog"
bid=$(readelf -n "$T/prog" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
mkdir -p "$T/debugroot/.build-id/${bid:0:2}"
objcopy --only-keep-debug "$T/prog" "$T/debugroot/.build-id/${bid:0:2}/${bid:2}.debug"
start "$T/bid/prog"
check "build-id debug file (BLAZESYM_SHIM_DEBUG_DIRS)" \
	"$(BLAZESYM_SHIM_DEBUG_DIRS="/nonexistent:$T/debugroot" sym -d "$pid" "$alpha")" \
	"target_alpha|$T/bid/prog|success|*"
check "build-id: not found without the debug root" "$(sym -d "$pid" "$alpha")" "-|*"
stop
# a debug file with another build-id under that name is refused
$cc -O0 -g -Wl,--build-id -o "$T/prog2" "$root/tests/symbolizer/prog_target.c"
objcopy --only-keep-debug "$T/prog2" "$T/debugroot/.build-id/${bid:0:2}/${bid:2}.debug"
start "$T/bid/prog"
check "build-id mismatch: refused" \
	"$(BLAZESYM_SHIM_DEBUG_DIRS="$T/debugroot" sym -d "$pid" "$alpha")" "-|*"
stop

# ---- deleted and replaced binaries ----
mkdir -p "$T/del"
cp "$T/prog" "$T/del/prog"
start "$T/del/prog"
rm "$T/del/prog"
check "deleted binary (map_files)" "$(sym "$pid" "$alpha")" "target_alpha|$T/del/prog|success|*"
check "deleted binary without map_files: missing" "$(sym -m "$pid" "$alpha")" \
	"-|$T/del/prog|missing component|*"
stop
cp "$T/prog" "$T/del/prog"
start "$T/del/prog"
cp "$T/del/prog" "$T/del/prog.new" && $cc -O0 -o "$T/del/prog.new" -x c - <<<'int zzz(void){return 0;} int main(void){return zzz();}'
mv "$T/del/prog.new" "$T/del/prog"
check "replaced binary (map_files)" "$(sym "$pid" "$alpha")" "target_alpha|*|success|*"
check "replaced binary without map_files: the new file is not used" "$(sym -m "$pid" "$alpha")" \
	"-|*|missing component|*"
stop

# ---- perf map (JIT) ----
start "$T/prog" jit
check "perf map" "$(sym -j "$pid" "$jit")" "jit_fn_2|\\[perf-map\\]|success|*|4"
check "perf map off: anonymous code unsupported" "$(sym "$pid" "$jit")" "-|-|unsupported|*"
stop
rm -f "/tmp/perf-$pid.map"

# ---- another mount namespace (and PID namespace) ----
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	mkdir -p "$T/nsmnt"
	# outside, a different file sits at the path the process maps
	printf 'not the program\n' >"$T/nsmnt/prog"
	start unshare -m --propagation private sh -c \
		"mount -t tmpfs tmpfs '$T/nsmnt' && cp '$T/prog' '$T/nsmnt/prog' && exec '$T/nsmnt/prog'"
	check "other mount namespace (map_files)" "$(sym "$pid" "$alpha")" \
		"target_alpha|$T/nsmnt/prog|success|*"
	check "other mount namespace (/proc/PID/root)" "$(sym -m "$pid" "$alpha")" \
		"target_alpha|$T/nsmnt/prog|success|*"
	stop
	start unshare -p -f -m --propagation private --kill-child sh -c \
		"cd '$T' && mount -t tmpfs tmpfs /tmp && exec ./prog jit"
	tpid=$pid
	for _ in $(seq 50); do pid=$(pgrep -P "$tpid" | head -1); [ -n "$pid" ] && break; sleep 0.05; done
	[ -z "$pid" ] && pid=$tpid
	check "perf map inside a PID+mount namespace (/proc/PID/root/tmp/perf-NSPID.map)" \
		"$(sym -j "$pid" "$jit")" "jit_fn_2|\\[perf-map\\]|success|*"
	# pid 1 of a PID namespace ignores SIGTERM; unshare waits for it
	kill -KILL "$pid" 2>/dev/null
	pid=$tpid
	stop
else
	echo "ok - # SKIP namespace cases need root and unshare"
fi

echo "# $fails failed"
[ "$fails" = 0 ]
