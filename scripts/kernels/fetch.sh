#!/bin/bash
# scripts/kernels/fetch.sh [ID...]
# Downloads Debian's kernel image packages of the kernel matrix (default:
# every id of KERNEL_IDS_ALL: 5.10 5.10-rt 6.1 6.1-rt 6.12 6.12-rt) into
# $KERNEL_CACHE (default /var/cache/latency-tools/kernels) and keeps of each
# only the kernel image, its config and the modules virtio 9p needs; the
# .deb is deleted.  The system's apt configuration is not touched: apt runs
# with a private sources list, lists and cache under $KERNEL_CACHE/apt.
# An id already in the cache is not downloaded again (KERNEL_REFRESH=1 looks
# for a newer package of every id asked for and replaces the cached one).
# Prints one line per id: "ID KVER PACKAGE".
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

[ $# -gt 0 ] || set -- $KERNEL_IDS_ALL
for id in "$@"; do kmx_valid_id "$id" || kmx_die "unknown kernel id '$id' (known: $KERNEL_IDS_ALL)"; done
for t in apt-get apt-cache dpkg-deb tar xz; do
	command -v "$t" >/dev/null || kmx_die "$t is needed"
done

mkdir -p "$KERNEL_CACHE"
exec 9>"$KERNEL_CACHE/.fetch.lock"
flock 9

APTDIR=$KERNEL_CACHE/apt
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MIRROR=${KERNEL_MIRROR:-http://deb.debian.org/debian}
# the kernels users run are the newest of each release: its security
# and point-release updates too
SECURITY=${KERNEL_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
APT_OPTS=(
	-o "Dir::Etc::SourceList=$APTDIR/sources.list"
	-o "Dir::Etc::SourceParts=$APTDIR/sources.list.d"
	-o "Dir::Etc::Preferences=$APTDIR/preferences"
	-o "Dir::Etc::PreferencesParts=$APTDIR/preferences.d"
	-o "Dir::State::Lists=$APTDIR/lists"
	-o "Dir::Cache=$APTDIR/cache"
	-o "Dir::State::extended_states=$APTDIR/extended_states"
	-o "Acquire::Languages=none"
	-o "APT::Sandbox::User=root"
)
apt_updated=""

apt_setup() {
	[ -n "$apt_updated" ] && return 0
	[ -f "$KEYRING" ] || kmx_die "$KEYRING is missing (package debian-archive-keyring)"
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" \
		"$APTDIR/sources.list.d" "$APTDIR/preferences.d" "$APTDIR/dl"
	: >"$APTDIR/preferences"
	cat >"$APTDIR/sources.list" <<EOF
deb [signed-by=$KEYRING] $MIRROR bullseye main
deb [signed-by=$KEYRING] $MIRROR bookworm main
deb [signed-by=$KEYRING] $MIRROR bookworm-updates main
deb [signed-by=$KEYRING] $MIRROR bookworm-backports main
deb [signed-by=$KEYRING] $SECURITY bullseye-security main
deb [signed-by=$KEYRING] $SECURITY bookworm-security main
EOF
	kmx_log "apt-get update (private lists in $APTDIR)"
	apt-get "${APT_OPTS[@]}" -q update >"$APTDIR/update.log" 2>&1 ||
		{ cat "$APTDIR/update.log" >&2; kmx_die "apt-get update failed"; }
	apt_updated=1
}

# resolve ID: prints the package names of that id, newest
# first (a newest one that the archive does not serve yet is passed
# over), from the Depends
# of the suite's metapackage (linux-image-amd64 / linux-image-rt-amd64),
# else from the names apt knows
resolve() {
	local id=$1 re meta name
	re=$(kmx_pkg_regex "$id")
	case "$id" in *-rt) meta=linux-image-rt-amd64 ;; *) meta=linux-image-amd64 ;; esac
	# the newest of the metapackages' Depends (of every suite) and of the
	# names apt knows (a security update of a release's kernel series is
	# not always in a metapackage of the lists)
	name=$( { apt-cache "${APT_OPTS[@]}" show "$meta" 2>/dev/null |
		sed -n 's/^Depends: //p' | tr ',|' '\n\n' | sed 's/(.*//; s/[[:space:]]//g' |
		grep -E "$re"
		apt-cache "${APT_OPTS[@]}" pkgnames linux-image- | grep -E "$re" |
			while read -r p; do
				apt-cache "${APT_OPTS[@]}" show "$p" >/dev/null 2>&1 && echo "$p"
			done; } | sort -uV | tac || true)
	[ -n "$name" ] || kmx_die "no package for kernel $id in $(kmx_suite "$id")"
	echo "$name"
}

norm() { echo "${1//-/_}"; }

# mod_depends FILE.ko: its modinfo depends= (the .modinfo section holds
# NUL-separated key=value strings; no kmod needed)
mod_depends() {
	tr '\0' '\n' <"$1" | grep -a -m1 '^depends=' | sed 's/^depends=//; s/,/ /g' || true
}

# extract_needed DEB DEST: the kernel, its config and the closure of the
# 9p modules over their depends=, uncompressed, with their load order
extract_needed() {
	local deb=$1 dest=$2 listing kver want todo m path newdeps tmp
	listing=$(dpkg-deb --fsys-tarfile "$deb" | tar -t)
	kver=$(echo "$listing" | sed -n 's|^\./boot/vmlinuz-||p' | head -1)
	[ -n "$kver" ] || kmx_die "$deb holds no boot/vmlinuz-*"
	tmp=$dest.x
	rm -rf "$tmp"; mkdir -p "$tmp"
	declare -A modpath=() have=()
	while read -r path; do
		m=${path##*/}; m=${m%.xz}; m=${m%.zst}; m=${m%.gz}; m=${m%.ko}
		modpath[$(norm "$m")]=$path
	done < <(echo "$listing" | grep -E '^\./lib/modules/[^/]+/kernel/.*\.ko(\.xz|\.zst|\.gz)?$')
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "./boot/vmlinuz-$kver" "./boot/config-$kver"
	mkdir -p "$tmp/modules"
	todo=""
	for m in $KERNEL_9P_MODULES; do todo="$todo $(norm "$m")"; done
	local order=() pass=0
	while :; do
		want=()
		for m in $todo; do
			[ -n "${have[$m]:-}" ] && continue
			if [ -z "${modpath[$m]:-}" ]; then
				have[$m]=builtin
				continue
			fi
			want+=("${modpath[$m]}")
			have[$m]=pending
		done
		[ ${#want[@]} -gt 0 ] || break
		pass=$((pass + 1))
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "${want[@]}"
		todo=""
		for path in "${want[@]}"; do
			local f=$tmp/$path base
			case "$f" in
			*.xz) xz -d "$f"; f=${f%.xz} ;;
			*.zst) zstd -q -d --rm "$f"; f=${f%.zst} ;;
			*.gz) gzip -d "$f"; f=${f%.gz} ;;
			esac
			base=${f##*/}
			mv "$f" "$tmp/modules/$base"
			m=$(norm "${base%.ko}")
			have[$m]=$base
			newdeps=$(mod_depends "$tmp/modules/$base")
			echo "$(norm "${base%.ko}") $newdeps" >>"$tmp/deps"
			for d in $newdeps; do todo="$todo $(norm "$d")"; done
		done
	done
	# load order: dependencies first (depth-first over depends=)
	declare -A done_=() deps=()
	while read -r m rest; do deps[$m]=$rest; done <"$tmp/deps"
	visit() {
		local x=$1 d
		[ -n "${done_[$x]:-}" ] && return 0
		done_[$x]=1
		for d in ${deps[$x]:-}; do visit "$(norm "$d")"; done
		case "${have[$x]:-}" in builtin|pending|"") ;; *) order+=("${have[$x]}") ;; esac
	}
	for m in $KERNEL_9P_MODULES; do visit "$(norm "$m")"; done
	for m in "${!deps[@]}"; do visit "$m"; done
	printf '%s\n' "${order[@]}" >"$tmp/modules.order"
	mv "$tmp/boot/vmlinuz-$kver" "$tmp/vmlinuz"
	mv "$tmp/boot/config-$kver" "$tmp/config"
	rm -rf "${tmp:?}/boot" "${tmp:?}/lib" "$tmp/deps"
	echo "$kver" >"$tmp/kver"
	echo "$tmp"
}

for id in "$@"; do
	dir=$(kmx_dir "$id")
	if kmx_complete "$id" && [ -z "${KERNEL_REFRESH:-}" ]; then
		echo "$id $(cat "$dir/kver") $(cat "$dir/package")"
		continue
	fi
	apt_setup
	cands=$(resolve "$id")
	if kmx_complete "$id" && [ "$(cut -d' ' -f1 "$dir/package")" = "${cands%%$'\n'*}" ]; then
		echo "$id $(cat "$dir/kver") $(cat "$dir/package")"
		continue
	fi
	dl=$APTDIR/dl
	pkg=""
	for c in $cands; do
		rm -f "$dl"/*.deb
		kmx_log "$id: downloading $c"
		t0=$(date +%s)
		if (cd "$dl" && apt-get "${APT_OPTS[@]}" -q download "$c") >"$dl/download.log" 2>&1; then
			pkg=$c
			break
		fi
		kmx_log "$id: apt-get download $c failed: $(grep -m1 -E '^(E|Err):' "$dl/download.log")"
	done
	[ -n "$pkg" ] || { cat "$dl/download.log" >&2; kmx_die "$id: no package could be downloaded (tried: $(echo $cands))"; }
	deb=$(find "$dl" -maxdepth 1 -name '*.deb' | head -1)
	[ -n "$deb" ] || kmx_die "$id: apt-get download $pkg left no .deb"
	ver=$(dpkg-deb -f "$deb" Version)
	kmx_log "$id: $(du -m "$deb" | cut -f1) MB in $(( $(date +%s) - t0 )) s; extracting"
	tmp=$(extract_needed "$deb" "$dir")
	echo "$pkg $ver $(stat -c %s "$deb")" >"$tmp/package"
	rm -f "$deb"
	date -u +%FT%TZ >"$tmp/complete"
	rm -rf "$dir"
	mv "$tmp" "$dir"
	kmx_log "$id: $(cat "$dir/kver"), modules: $(tr '\n' ' ' <"$dir/modules.order")"
	echo "$id $(cat "$dir/kver") $(cat "$dir/package")"
done
