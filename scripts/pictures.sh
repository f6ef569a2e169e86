#!/usr/bin/env bash
# The pictures of docs/img/, from a real run: tests/tools/test_flamesvg.sh
# runs each stack tool with --svg on a workload of known behaviour (and
# hotcheck -o on docs/diagnosis.md's), loads every graph in Debian's
# chromium and keeps each as build/artefacts/picture-NAME.png (1200 px
# wide, clipped to the graph's height); this copies them to
# docs/img/NAME.png.  As root (the tools load BPF).
#   scripts/pictures.sh          build, run the test, copy
#   scripts/pictures.sh --copy   copy what the last run of the test left
# `make pictures` runs the first form.
set -eu
cd "$(dirname "$0")/.."
art=${BUILD:-$PWD/build}/artefacts
case ${1:-} in
--copy) ;;
"")
	make -s -j2 all
	# the test's last line: "N passed, 0 failed"; a picture of a failed
	# run is not copied
	tests/run.sh test_flamesvg | tail -1 | grep -q ' 0 failed$' || {
		echo "pictures: tests/run.sh test_flamesvg failed; docs/img/ left as it was" >&2
		exit 1
	}
	;;
*)
	echo "usage: scripts/pictures.sh [--copy]" >&2
	exit 2
	;;
esac
shopt -s nullglob
pics=("$art"/picture-*.png)
if [ ${#pics[@]} = 0 ]; then
	echo "pictures: no $art/picture-*.png (run tests/run.sh test_flamesvg first)" >&2
	exit 1
fi
mkdir -p docs/img
for p in "${pics[@]}"; do
	name=${p##*/picture-}
	cp "$p" "docs/img/$name"
	echo "docs/img/$name: $(stat -c %s "$p") bytes"
done
