#!/bin/bash
# scripts/kernels/initramfs.sh [ID...]
# Builds $KERNEL_CACHE/<id>/initramfs.cpio.gz for each fetched kernel (default:
# every complete one): busybox-static, the virtio 9p modules of that kernel,
# and an /init that
#   - insmods the modules (dependencies first),
#   - mounts the host's root filesystem read-only over virtio 9p (mount tag
#     "root", as boot.sh's -virtfs gives it),
#   - moves /proc, /sys, /dev into it, mounts tmpfs on /tmp, /run, /var/tmp,
#     /dev/shm, devpts, bpffs on /sys/fs/bpf, tracefs on /sys/kernel/tracing,
#     debugfs on /sys/kernel/debug, cgroup2 on /sys/fs/cgroup,
#   - if the kernel command line has suite.out=DIR and there is a second 9p
#     share tagged "out", mounts it writable on DIR,
#   - switch_roots, and runs (with the host's /bin/bash) the script named by
#     suite.cmd=PATH on the kernel command line, its output on the console,
#   - prints "SUITE-GUEST-EXIT=<status>" and powers off.
# The image does not depend on the checkout: the command file names it.
# Rebuilt only when this script, busybox or the modules changed.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

BUSYBOX=${BUSYBOX:-}
if [ -z "$BUSYBOX" ]; then
	for b in /bin/busybox /usr/bin/busybox; do
		[ -x "$b" ] && { BUSYBOX=$b; break; }
	done
fi
[ -n "$BUSYBOX" ] || kmx_die "busybox is needed (apt-get install busybox-static)"
{ ldd "$BUSYBOX" 2>&1 || true; } | grep -q 'not a dynamic' ||
	kmx_die "$BUSYBOX is not statically linked (apt-get install busybox-static)"
command -v cpio >/dev/null || kmx_die "cpio is needed"

if [ $# -eq 0 ]; then
	for id in $KERNEL_IDS_ALL; do kmx_complete "$id" && set -- "$@" "$id"; done
	[ $# -gt 0 ] || kmx_die "no kernel fetched yet (scripts/kernels/fetch.sh)"
fi

write_init() {
	cat <<'EOF'
#!/bin/busybox sh
# initramfs /init of the kernel matrix (scripts/kernels/initramfs.sh)
/bin/busybox mkdir -p /proc /sys /dev /newroot /usr/bin /usr/sbin /sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
fatal() {
	echo "SUITE-INIT-FAILED: $*"
	echo "SUITE-GUEST-EXIT=255"
	echo o >/proc/sysrq-trigger
	while :; do sleep 10; done
}
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -1; }
echo "SUITE-INIT: $(uname -r) up $(cut -d' ' -f1 /proc/uptime) s"
while read -r m; do
	insmod "/modules/$m" || fatal "insmod $m"
done </modules.order
msize=$(arg suite.msize); [ -n "$msize" ] || msize=262144
out=$(arg suite.out)
root=$(arg suite.root)
host=$(arg suite.hostname)
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=$msize,cache=loose root /newroot ||
	mount -t 9p -o trans=virtio,version=9p2000.L,ro root /newroot ||
	fatal "mount of the host's root over 9p"
for d in proc sys dev; do mount --move /$d /newroot/$d || fatal "mount --move /$d"; done
R=/newroot
for d in tmp var/tmp; do mount -t tmpfs -o mode=1777 tmpfs $R/$d || fatal "tmpfs on /$d"; done
mount -t tmpfs -o mode=755 tmpfs $R/run || fatal "tmpfs on /run"
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts $R/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $R/dev/shm
mount -t bpf bpf $R/sys/fs/bpf || echo "SUITE-INIT: no bpffs"
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs $R/sys/kernel/tracing 2>/dev/null ||
	echo "SUITE-INIT: no tracefs on /sys/kernel/tracing"
mount -t cgroup2 cgroup2 $R/sys/fs/cgroup 2>/dev/null
# a checkout under a directory the guest gets fresh (CI may clone into
# /tmp): its own share, mounted where it is on the host
case "$root" in
/tmp/*|/var/tmp/*|/run/*|/dev/shm/*)
	mkdir -p "$R$root"
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=$msize,cache=loose checkout "$R$root" ||
		fatal "mount of the checkout on $root"
	;;
esac
if [ -n "$out" ]; then
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=$msize out "$R$out" ||
		echo "SUITE-INIT: could not mount the output share on $out"
fi
[ -n "$host" ] && hostname "$host"
ip link set lo up 2>/dev/null
cp /runner.sh $R/run/suite-runner.sh
echo "SUITE-INIT: switching root at $(cut -d' ' -f1 $R/proc/uptime) s"
exec switch_root /newroot /bin/sh /run/suite-runner.sh
fatal "switch_root"
EOF
}

write_runner() {
	cat <<'EOF'
#!/bin/sh
# PID 1 in the guest's new root: runs the command file, says its status,
# powers off (scripts/kernels/initramfs.sh)
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=dumb LANG=C.UTF-8
cmd=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^suite\.cmd=//p' | tail -1)
echo "SUITE-GUEST-START uptime=$(cut -d' ' -f1 /proc/uptime)"
if [ -n "$cmd" ] && [ -r "$cmd" ]; then
	/bin/bash "$cmd" </dev/null
	rc=$?
else
	echo "SUITE-INIT-FAILED: no readable suite.cmd= ($cmd)"
	rc=255
fi
echo "SUITE-GUEST-END uptime=$(cut -d' ' -f1 /proc/uptime)"
echo "SUITE-GUEST-EXIT=$rc"
sync
echo o >/proc/sysrq-trigger
# PID 1 must outlive the power-off, however long the kernel takes to get
# there (a minute was not enough on a loaded host: "Attempted to kill init")
while :; do sleep 10; done
EOF
}

for id in "$@"; do
	kmx_complete "$id" || kmx_die "kernel $id is not fetched (scripts/kernels/fetch.sh $id)"
	dir=$(kmx_dir "$id")
	exec 9>"$dir/.lock"
	flock 9
	stamp=$(cat "$0" "$BUSYBOX" "$dir/modules.order" "$dir/complete" | sha256sum | cut -c1-16)
	if [ -f "$dir/initramfs.cpio.gz" ] && [ "$(cat "$dir/initramfs.stamp" 2>/dev/null)" = "$stamp" ]; then
		continue
	fi
	work=$(mktemp -d)
	mkdir -p "$work/bin" "$work/modules" "$work/dev"
	mknod -m 600 "$work/dev/console" c 5 1
	cp "$BUSYBOX" "$work/bin/busybox"
	cp "$dir/modules.order" "$work/modules.order"
	while read -r m; do cp "$dir/modules/$m" "$work/modules/"; done <"$dir/modules.order"
	write_init >"$work/init"
	write_runner >"$work/runner.sh"
	chmod 755 "$work/init" "$work/runner.sh"
	(cd "$work" && find . | sort | cpio -o -H newc --quiet --owner=0:0) | gzip -1 >"$dir/initramfs.cpio.gz.tmp"
	mv "$dir/initramfs.cpio.gz.tmp" "$dir/initramfs.cpio.gz"
	echo "$stamp" >"$dir/initramfs.stamp"
	rm -rf "$work"
	kmx_log "$id: $dir/initramfs.cpio.gz ($(du -k "$dir/initramfs.cpio.gz" | cut -f1) kB)"
done
