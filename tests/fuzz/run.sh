#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Build the blazesym-shim fuzz targets (libFuzzer + ASan + UBSan) and run
# each for SECONDS (default 30).  Exit status: 0 when no target failed.
#
#   tests/fuzz/run.sh [SECONDS]
#
# Environment: CC (default clang), FUZZ_DIR (build and corpus directory,
# default ${TMPDIR:-/tmp}/blazesym-shim-fuzz; the corpora grow across runs),
# FUZZ_TARGETS (default "elf maps text").  Crash inputs are left in
# $FUZZ_DIR/crash-*; replay one with $FUZZ_DIR/fuzz_X $FUZZ_DIR/crash-....
set -eu

secs=${1:-30}
case $secs in '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-clang}
out=${FUZZ_DIR:-${TMPDIR:-/tmp}/blazesym-shim-fuzz}
targets=${FUZZ_TARGETS:-elf maps text}
mkdir -p "$out"

flags="-g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 -fno-sanitize-recover=undefined -fno-omit-frame-pointer -I$root/blazesym-shim"
libs="-lelf -ldw -lz -lpthread -liberty"

for t in $targets; do
	echo "== build fuzz_$t"
	# shellcheck disable=SC2086
	$cc $flags -o "$out/fuzz_$t" "$root/tests/fuzz/fuzz_$t.c" "$root"/blazesym-shim/*.c $libs
done

# Seed corpora (only added to, never cleared).
seed() { mkdir -p "$out/corpus_$1"; }
seed elf
seed maps
seed text
printf 'int f(void){return 1;}\nint g(void){return f()+1;}\n' >"$out/tiny.c"
if $cc -shared -fPIC -nostdlib -Wl,--build-id -g -o "$out/corpus_elf/tiny.so" "$out/tiny.c" 2>/dev/null; then
	objcopy --strip-debug "$out/corpus_elf/tiny.so" "$out/corpus_elf/tiny-nodebug.so" || true
fi
# inlined functions in the DWARF: the inline index's input
printf 'static inline __attribute__((always_inline)) int in2(int x){return x*3;}\nstatic inline __attribute__((always_inline)) int in1(int x){return in2(x)+1;}\nint h(int x){return in1(x)+in1(x+1);}\n' >"$out/inl.c"
$cc -shared -fPIC -nostdlib -O2 -g -Wl,--build-id -o "$out/corpus_elf/inl.so" "$out/inl.c" 2>/dev/null || true
for f in /usr/lib/x86_64-linux-gnu/crt1.o /usr/lib/x86_64-linux-gnu/crti.o; do
	[ -f "$f" ] && cp "$f" "$out/corpus_elf/" || true
done
cp /proc/self/maps "$out/corpus_maps/self" 2>/dev/null || true
printf '%s\n' \
	'00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/dbus-daemon' \
	'7f1c2a000000-7f1c2a021000 r-xp 00001000 fd:01 42 /lib/with space/libx.so (deleted)' \
	'7ffd5a9f0000-7ffd5a9f2000 r-xp 00000000 00:00 0 [vdso]' \
	'ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]' \
	'7f00-7e00 r-xp 0 0:0 0' >"$out/corpus_maps/crafted"
{ printf '\000'; head -200 /proc/kallsyms 2>/dev/null || true
  printf 'ffffffffc0a00000 t ext4_fill_super\t[ext4]\n'; } >"$out/corpus_text/kallsyms"
printf '\0011000 100 jit_fn\n0x2000 0x20 other one\ngarbage\n3000 zz bad\n' >"$out/corpus_text/perfmap"
printf '\002_ZN3foo3barEv' >"$out/corpus_text/cxx"
printf '\002_ZNSt6vectorIiSaIiEE9push_backERKi' >"$out/corpus_text/cxx-template"
printf '\002_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal' >"$out/corpus_text/rust-v0"
printf '\002_RINvNtCs5qGmzaPOe1L_2pcu8gdel_5qau7lzzs90aThReEEB4_' >"$out/corpus_text/rust-v0-generic"
printf '\002_RNCNCNCNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal00s_0B9_' >"$out/corpus_text/rust-v0-closure"
printf '\002_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h6f3e5c3ab2ab7ce1E' >"$out/corpus_text/rust"

fail=0
for t in $targets; do
	echo "== run fuzz_$t for ${secs}s"
	if ! (cd "$out" && ASAN_OPTIONS=detect_leaks=1 "./fuzz_$t" -max_total_time="$secs" \
		-max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		"corpus_$t" >"fuzz_$t.log" 2>&1); then
		echo "fuzz_$t FAILED, see $out/fuzz_$t.log:"
		grep -E 'ERROR|SUMMARY|Test unit written' "$out/fuzz_$t.log" | head -20
		fail=1
	else
		grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$out/fuzz_$t.log" |
			sed "s/^/fuzz_$t: /"
	fi
done
exit $fail
