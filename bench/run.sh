#!/usr/bin/env bash
# make bench: builds the benchmark workloads and the floor loader
# (bench/floor/), checks what the anchors need, and runs bench/bench.py
# (all options pass through; --help lists them).
#   bench/run.sh            full run (7 rounds of 1 s windows, < 20 min)
#   bench/run.sh --quick    2 rounds of 0.3 s windows (about 2 min)
#   bench/run.sh --only 'syscall'   only the rows matching a regex
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
case " $* " in *" -h "*|*" --help "*) exec python3 bench/bench.py --help ;; esac
if [ "$(id -u)" != 0 ]; then
	echo "bench: must run as root (the tracers load BPF)" >&2
	exit 3
fi

# The anchors (libbpf-tools, bpftrace, perf): installed when missing.
scripts/deps.sh --bench || { echo "bench: missing packages (scripts/deps.sh --bench)" >&2; exit 3; }

# Workloads: built like tests/workloads (frame pointers), and with no
# sibling calls or identical-code folding, so that stacks10k's 10,000
# call paths stay distinct.
out=build/bench
mkdir -p "$out"
for src in bench/workloads/*.c; do
	bin=$out/$(basename "$src" .c)
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ bench/workloads/bench_wl.h -nt "$bin" ] ||
	   [ tests/workloads/wl.h -nt "$bin" ]; then
		printf '  %-8s %s\n' CC "$bin"
		${CC:-cc} -O1 -g -pthread -Wall -Wextra -D_GNU_SOURCE -fno-omit-frame-pointer \
			-fno-optimize-sibling-calls -fno-ipa-icf -Itests/workloads \
			"$src" -o "$bin"
	fi
done

# --inline's cost (bench/symbolizer/inline.c, against the symbolizer's
# sources) on a large Rust binary (bench/symbolizer/rust_big.rs: 35 MB
# with std's debug info; its build takes minutes once, then is kept)
if [ ! -x "$out/inline" ] || [ bench/symbolizer/inline.c -nt "$out/inline" ] ||
   [ -n "$(find blazesym-shim -newer "$out/inline" -name '*.[ch]' | head -1)" ]; then
	printf '  %-8s %s\n' CC "$out/inline"
	${CC:-cc} -O2 -g -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -Iblazesym-shim -o "$out/inline" \
		bench/symbolizer/inline.c blazesym-shim/*.c -lelf -ldw -lz -lpthread -liberty
fi
if command -v "${RUSTC:-rustc}" >/dev/null; then
	if [ ! -x "$out/rust_big" ] || [ bench/symbolizer/rust_big.rs -nt "$out/rust_big" ]; then
		printf '  %-8s %s (takes minutes)\n' RUSTC "$out/rust_big"
		"${RUSTC:-rustc}" -O -g -C force-frame-pointers=yes -C symbol-mangling-version=v0 \
			--edition 2021 bench/symbolizer/rust_big.rs -o "$out/rust_big"
	fi
else
	echo "bench: rustc not found: no --inline row (Debian's rustc package)" >&2
fi

# The floor (an empty-ish program on each hook the tools use, bench/floor/):
# BPF object -> skeleton -> loader, with the flags of the tools' objects.
arch=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
bpftool=$(command -v bpftool || echo /usr/sbin/bpftool)
if [ ! -x "$out/floor" ] || [ bench/floor/floor.bpf.c -nt "$out/floor" ] ||
   [ bench/floor/floor.c -nt "$out/floor" ] || [ bpf/uwalk.bpf.h -nt "$out/floor" ] ||
   [ build/libsuite.a -nt "$out/floor" ]; then
	printf '  %-8s %s\n' BPF "$out/floor"
	${CLANG:-clang} -O2 -g -Wall -target bpf -mcpu=v3 -D__TARGET_ARCH_"$arch" \
		-Ivmlinux/"$arch" -Ibpf -c bench/floor/floor.bpf.c -o "$out/floor.bpf.o"
	"$bpftool" gen skeleton "$out/floor.bpf.o" name floor_bpf > "$out/floor.skel.h.tmp"
	mv "$out/floor.skel.h.tmp" "$out/floor.skel.h"
	${CC:-cc} -O2 -g -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -I"$out" \
		-Itools/lib bench/floor/floor.c build/libsuite.a -o "$out/floor" -lbpf -lelf -lz
fi

# bpftrace and libbpf-tools' tracepoint programs find tracepoints through
# tracefs (the suite's tools do not need it): mount it for the run if it
# is not there, and unmount it afterwards.
mounted=
if [ ! -d /sys/kernel/tracing/events ]; then
	if mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
		mounted=1
		echo "bench: mounted tracefs on /sys/kernel/tracing for the anchors (unmounted at the end)" >&2
	else
		echo "bench: tracefs not mounted and cannot be: bpftrace and syscount rows will fail" >&2
	fi
fi
rc=0
python3 bench/bench.py "$@" || rc=$?
if [ -n "$mounted" ]; then
	umount /sys/kernel/tracing 2>/dev/null || true
fi
exit "$rc"
