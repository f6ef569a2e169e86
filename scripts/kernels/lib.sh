# shellcheck shell=bash disable=SC2034
# Shared definitions of the kernel matrix (sourced by scripts/kernels/*.sh
# and tests/kernels/run.sh).
#
# A kernel is named by a short id: 5.10, 5.10-rt, 6.1, 6.1-rt, 6.12, 6.12-rt.
# Its cached files live in $KERNEL_CACHE/<id>/:
#   package        the Debian package it came from (name and version)
#   kver           the kernel release (uname -r inside the guest)
#   vmlinuz        the kernel image
#   config         the kernel's configuration
#   modules/*.ko   the modules the initramfs loads (uncompressed)
#   modules.order  their file names, dependencies first
#   initramfs.cpio.gz  built by initramfs.sh
#   complete       written last: the cache entry is whole

KERNEL_CACHE=${KERNEL_CACHE:-/var/cache/latency-tools/kernels}
KERNEL_IDS_ALL="5.10 5.10-rt 6.1 6.1-rt 6.12 6.12-rt"

# The modules the guest needs to mount the host's root over virtio 9p
# (those a kernel has built in, or does not have, are skipped).
KERNEL_9P_MODULES="virtio virtio_ring virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci fscache netfs 9pnet 9pnet_virtio 9p"

kmx_die() { echo "${0##*/}: $*" >&2; exit 1; }
kmx_log() { echo "${0##*/}: $*" >&2; }

# kmx_suite ID: the Debian suite its package comes from
kmx_suite() {
	case "$1" in
	5.10|5.10-rt) echo bullseye ;;
	6.1|6.1-rt) echo bookworm ;;
	6.12|6.12-rt) echo bookworm-backports ;;
	*) return 1 ;;
	esac
}

# kmx_pkg_regex ID: an extended regex matching exactly its package names
kmx_pkg_regex() {
	local flav=amd64
	case "$1" in *-rt) flav=rt-amd64 ;; esac
	case "$1" in
	5.10|5.10-rt) echo "^linux-image-5\.10\.0-[0-9]+-$flav\$" ;;
	6.1|6.1-rt) echo "^linux-image-6\.1\.0-[0-9]+-$flav\$" ;;
	6.12|6.12-rt) echo "^linux-image-6\.12\.[0-9]+\+deb12-$flav\$" ;;
	*) return 1 ;;
	esac
}

kmx_valid_id() { kmx_suite "$1" >/dev/null 2>&1; }
kmx_dir() { echo "$KERNEL_CACHE/$1"; }
kmx_complete() { [ -f "$KERNEL_CACHE/$1/complete" ]; }
