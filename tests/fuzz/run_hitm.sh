#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Build hitmtop's fuzz target (libFuzzer + ASan + UBSan) and run it for
# SECONDS (default 30).  Exit status: 0 when it found nothing.
#
#   tests/fuzz/run_hitm.sh [SECONDS]
#
# Environment: CC (default clang), FUZZ_DIR (default
# ${TMPDIR:-/tmp}/hitm-fuzz; the corpus grows across runs).
set -eu

secs=${1:-30}
case $secs in '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-clang}
out=${FUZZ_DIR:-${TMPDIR:-/tmp}/hitm-fuzz}
mkdir -p "$out/corpus"

echo "== build fuzz_hitm"
[ -f "$root/build/syscall_names.h" ] || make -C "$root" build/syscall_names.h >/dev/null	# tools/lib/syscalls.c includes it
$cc -g -O1 -std=gnu11 -D_GNU_SOURCE -DSUITE_VERSION='"fuzz"' \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I"$root/tools/hitmtop" -iquote "$root/tools/lib" -I"$root/blazesym-shim" -I"$root/bpf" -I"$root/build" \
	-o "$out/fuzz_hitm" "$root/tests/fuzz/fuzz_hitm.c" \
	$(ls "$root"/tools/hitmtop/*.c | grep -v '/hitmtop\.c$') \
	"$root"/tools/lib/*.c "$root"/blazesym-shim/*.c -lbpf -lelf -ldw -lz -lpthread -liberty

# seeds: a format spec line, samples of every kind, malformed lines
printf 'config:0-7,32-35\n0 1 2 0x401000 0x601040 0x%x 30\n' $((0x4 | (0x42 << 5))) >"$out/corpus/store"
printf '# c\n1 1 2 0x401000 0x601048 0x%x 90\n1 1 2 3 4\n\n' $((0x2 | (0x42 << 5) | (0x10 << 19))) >"$out/corpus/hitm"
printf 'config1:0-15\n0 1 2 0x1 0x601000 0x200000004 1\n0 1 2 0x1 0x601008 0x800000002 1\n' >"$out/corpus/mixed"

echo "== run fuzz_hitm for ${secs}s"
if ! (cd "$out" && ASAN_OPTIONS=detect_leaks=1 ./fuzz_hitm -max_total_time="$secs" \
	-max_len=65536 -timeout=10 -print_final_stats=1 corpus >fuzz_hitm.log 2>&1); then
	echo "fuzz_hitm FAILED, see $out/fuzz_hitm.log:"
	grep -E 'ERROR|SUMMARY|Test unit written' "$out/fuzz_hitm.log" | head -20
	exit 1
fi
grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$out/fuzz_hitm.log" | sed 's/^/fuzz_hitm: /'
