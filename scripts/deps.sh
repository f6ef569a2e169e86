#!/usr/bin/env bash
# Installs what the suite needs to build and test, from Debian's archive.
# As root it runs apt-get; otherwise it prints the command to run.
#   scripts/deps.sh          build + test dependencies
#   scripts/deps.sh --bench  also the tools `make bench` compares against
set -eu
pkgs="make gcc clang llvm bpftool libbpf-dev libelf-dev libdw-dev libiberty-dev zlib1g-dev libzstd-dev liblzma-dev libbz2-dev python3 binutils elfutils man-db time strace"
pkgs="$pkgs libjson-c-dev"	# hotcheck --baseline reads an earlier report with json-c
pkgs="$pkgs golang-go"	# go tool pprof reads the --pprof profiles (tests/tools/test_pprof.sh)
pkgs="$pkgs prometheus"	# the server and promtool (tests/tools/test_metrics.sh)
if [ "${1:-}" = "--bench" ]; then
	pkgs="$pkgs libbpf-tools bpftrace linux-perf"
fi
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "missing packages:$missing" >&2
	echo "install them with: sudo apt-get install$missing" >&2
	exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# no service of a package installed here starts (prometheus would listen on
# port 9090): the tests start their own server on a free loopback port
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
fi
