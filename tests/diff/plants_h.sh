#!/bin/sh
# plants_h.sh PLANT|none|layout: print plants.h for a BPF build, from the
# one list of planted bugs, tests/diff/plants.txt. A production build
# plants none: every fcaps_plant(X) is a constant 0 there, which clang
# removes with the code it guards. "layout" is no bug: a build whose
# config is laid out differently, for bpf.sh's check of another build's
# pins.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
want=$1
echo "/* Generated from tests/diff/plants.txt by tests/diff/plants_h.sh: do not edit */"
echo "#ifndef FCAPS_PLANTS_H"
echo "#define FCAPS_PLANTS_H"
echo "#define FCAPS_PLANT_ID_NONE 0"
n=0 found=0
for p in $(sed -n 's/^\([A-Z0-9_]*\)[[:space:]]*|[[:space:]]*bpf[[:space:]]*|.*/\1/p' "$here/plants.txt"); do
	n=$((n + 1))
	echo "#define FCAPS_PLANT_ID_$p $n"
	[ "$p" = "$want" ] && found=$n
done
case "$want" in
none|layout) ;;
*) [ "$found" != 0 ] || { echo "plants_h.sh: no BPF plant '$want' in plants.txt" >&2; exit 2; };;
esac
echo "#define FCAPS_PLANTED $found"
echo "/* planted bug X in this build (tests/diff/plants.txt): a constant */"
echo "#define fcaps_plant(x) (FCAPS_PLANTED == FCAPS_PLANT_ID_##x)"
if [ "$want" = layout ]; then
	echo "#define FCAPS_CONFIG_TEST_FIELDS __u32 layout_variant;"
else
	echo "#define FCAPS_CONFIG_TEST_FIELDS"
fi
echo "#endif"
