#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Benchmark of blazesym-shim (not a test; numbers go to RESULTS.md by hand).
#   bench/symbolizer/run.sh [N]        N addresses, default 100000
# Builds bench.c against the shim sources (-O2), generates a large shared
# library (~10 MB: 80,000 hidden functions, .symtab only) unless BIG_ELF
# names another one, runs the benchmark, then times `addr2line -f` and
# `eu-addr2line -f` (if installed) on the same addresses, module by module,
# and prints the ratios and how often their function names agree with ours.
# Environment: CC (default cc), BENCH_DIR (default mktemp -d), BIG_ELF.
set -eu

n=${1:-100000}
root=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-cc}
B=${BENCH_DIR:-$(mktemp -d /tmp/bzs-bench.XXXXXX)}
mkdir -p "$B"

$cc -O2 -g -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -I"$root/blazesym-shim" -o "$B/bench" \
	"$root/bench/symbolizer/bench.c" "$root"/blazesym-shim/*.c -lelf -ldw -lz -lpthread -liberty

big=${BIG_ELF:-$B/libbig.so}
if [ ! -f "$big" ]; then
	echo "generating $big"
	awk 'BEGIN {
		print ".text"
		for (i = 0; i < 80000; i++) {
			name = sprintf("bench_big_function_%06d_%x_with_a_longer_name", i, i * 2654435761 % 4294967296)
			printf ".globl %s\n.hidden %s\n.type %s,@function\n.p2align 4\n%s:\n.skip %d,0x90\nret\n.size %s,.-%s\n",
				name, name, name, name, 32 + (i % 7) * 8, name, name
		}
	}' >"$B/big.s"
	$cc -shared -nostdlib -Wl,--build-id -o "$big" "$B/big.s"
fi

echo "== blazesym-shim"
"$B/bench" -n "$n" -o "$B" "$big" | tee "$B/bench.out"
ours=$(sed -n 's/^warm_one_call_addrs_per_s: \([0-9]*\).*/\1/p' "$B/bench.out")

# time a tool on one module's addresses; print addresses/second and name agreement
run_tool() { # TOOL MODULE_INDEX
	local tool=$1 k=$2 mod cnt t0 t1 rate agree
	mod=$(sed -n "$((k + 1))p" "$B/modules")
	cnt=$(wc -l <"$B/addrs.$k")
	t0=$(date +%s.%N)
	case $tool in
	addr2line) addr2line -f -e "$mod" <"$B/addrs.$k" >"$B/$tool.$k" ;;
	eu-addr2line) eu-addr2line -f -e "$mod" <"$B/addrs.$k" >"$B/$tool.$k" ;;
	esac
	t1=$(date +%s.%N)
	rate=$(echo "$cnt / ($t1 - $t0)" | bc -l)
	# function names are every other line; compare the bare names
	agree=$(awk 'NR % 2 == 1' "$B/$tool.$k" | sed 's/@.*//; s/+0x.*//' |
		paste -d'\t' - "$B/names.$k" | awk -F'\t' '$1 == $2' | wc -l)
	printf '%-13s %-45s %7d addrs %12.0f addrs/s  ours/theirs %6.1fx  same name %d%%\n' \
		"$tool" "$(basename "$mod")" "$cnt" "$rate" "$(echo "$ours / $rate" | bc -l)" \
		$((100 * agree / cnt))
}

echo "== comparison (their time includes process start and loading the file)"
for tool in addr2line eu-addr2line; do
	command -v $tool >/dev/null || { echo "$tool: not installed"; continue; }
	for k in 0 1 2; do run_tool $tool $k; done
done
echo "files in $B"

# --inline: the DWARF reader on a Rust binary with std's debug info
# (INLINE_ELF; default the large one make bench builds from rust_big.rs,
# else the Rust workload of tests/workloads)
iel=${INLINE_ELF:-$root/build/bench/rust_big}
[ -f "$iel" ] || iel=$root/build/workloads/rust_blocker_v0
if [ -f "$iel" ]; then
	$cc -O2 -g -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -I"$root/blazesym-shim" -o "$B/inline" \
		"$root/bench/symbolizer/inline.c" "$root"/blazesym-shim/*.c -lelf -ldw -lz -lpthread -liberty
	echo "== --inline on $iel"
	"$B/inline" "$iel"
else
	echo "== --inline: skipped ($iel not built: make workloads, with rustc)"
fi
