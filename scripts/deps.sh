#!/usr/bin/env bash
# Installs what the suite needs, from Debian's archive.  As root it runs
# apt-get; otherwise it prints the command to run.
#   scripts/deps.sh            what the tools need to build and run (the demo)
#   scripts/deps.sh --test     also what the tests need (make test)
#   scripts/deps.sh --kernels  also QEMU and Debian's kernels for the kernel
#                              matrix (make test-kernels; the kernels go to
#                              the cache of scripts/kernels/fetch.sh)
#   scripts/deps.sh --bench    also the tools `make bench` compares against
# Options add up: scripts/deps.sh --test --kernels.
set -eu
cd "$(dirname "$0")/.."
pkgs="make gcc clang llvm bpftool libbpf-dev libelf-dev libdw-dev libiberty-dev zlib1g-dev libzstd-dev liblzma-dev libbz2-dev python3 binutils elfutils"
pkgs="$pkgs libjson-c-dev"	# hotcheck --baseline reads an earlier report with json-c
kernels=""
browser=""
for opt in "$@"; do
	case $opt in
	--test)
		pkgs="$pkgs man-db time strace"
		pkgs="$pkgs golang-go"	# go tool pprof reads the --pprof profiles (tests/tools/test_pprof.sh)
		pkgs="$pkgs prometheus"	# the server and promtool (tests/tools/test_metrics.sh)
		# real software and its ground truth (tests/real/): redis-server and
		# redis-benchmark, Node (--perf-basic-prof), perf stat's software
		# counters, libbpf-tools' syscount
		pkgs="$pkgs redis-server redis-tools nodejs linux-perf libbpf-tools"
		# the --svg flame graphs and the --trace timelines are checked in a
		# browser: Debian's chromium, driven by puppeteer-core from npm, the
		# traces opened in speedscope from npm (tests/browser/, no browser
		# download)
		pkgs="$pkgs chromium"
		# npm comes with Debian's nodejs as a package of its own (and
		# within other builds of node)
		command -v npm >/dev/null || pkgs="$pkgs npm"
		browser=1
		;;
	--kernels)
		# QEMU boots Debian's kernels with a busybox initramfs
		pkgs="$pkgs qemu-system-x86 busybox-static cpio kmod xz-utils"
		# the peers the kernel investigation runs beside the suite
		pkgs="$pkgs libbpf-tools bpftrace"
		kernels=1
		;;
	--bench)
		pkgs="$pkgs libbpf-tools bpftrace linux-perf"
		;;
	*)
		echo "usage: scripts/deps.sh [--test] [--kernels] [--bench]" >&2
		exit 2
		;;
	esac
done
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "missing packages:$missing" >&2
		echo "install them with: sudo apt-get install$missing" >&2
		exit 1
	fi
	echo "installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	# no service of a package installed here starts (prometheus would
	# listen on port 9090, redis on 6379): the tests start their own
	# servers on free loopback ports
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
		trap 'rm -f /usr/sbin/policy-rc.d' EXIT
	fi
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
	if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
		systemctl disable --now prometheus.service >/dev/null 2>&1 || true
		systemctl disable --now redis-server.service >/dev/null 2>&1 || true
	fi
fi
if [ -n "$browser" ]; then
	# the versions of tests/browser/package-lock.json, into
	# tests/browser/node_modules (ignored by git)
	npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
fi
if [ -n "$kernels" ]; then
	# Debian's kernel packages, once: a second run finds them cached
	scripts/kernels/fetch.sh
fi
