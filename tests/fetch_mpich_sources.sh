#!/bin/bash
# Fetch MPICH's source tarball (for tests/mpich_test_suite.sh) from Debian's source package,
# with apt's own client, without touching the machine's apt configuration: the deb-src
# counterparts of the machine's Debian sources go into a private state directory.
#
#   tests/fetch_mpich_sources.sh <directory>
#
# Prints the tarball's path, or says why it could not and exits 1 (no apt, no Debian sources,
# the registry not reached).
set -euo pipefail
out=${1:?usage: $0 <directory>}
mkdir -p "$out"
found=$(ls "$out"/mpich_*.orig.tar.* 2>/dev/null | head -1 || true)
if [ -n "$found" ]; then
    echo "$found"
    exit 0
fi
command -v apt-get > /dev/null || { echo "no apt-get on this machine" >&2; exit 1; }
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
mkdir -p "$state/parts" "$state/lists/partial" "$state/cache/archives/partial"
# deb822 files (Types: deb) and one-line lists (deb URI SUITE ...), as deb-src
for file in /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] && sed 's/^Types: deb$/Types: deb-src/' "$file" > "$state/parts/$(basename "$file")"
done
for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] && sed -n 's/^deb \(.*\)/deb-src \1/p' "$file" > "$state/parts/$(basename "$file").list"
done
apt=(apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$state/parts"
     -o Dir::State::Lists="$state/lists" -o Dir::Cache="$state/cache"
     -o APT::Sandbox::User=root)
"${apt[@]}" update > "$state/update.log" 2>&1 || { cat "$state/update.log" >&2; exit 1; }
(cd "$out" && "${apt[@]}" source --download-only mpich > "$state/source.log" 2>&1) ||
    { cat "$state/source.log" >&2; exit 1; }
found=$(ls "$out"/mpich_*.orig.tar.* 2>/dev/null | head -1 || true)
[ -n "$found" ] || { echo "apt-get source gave no mpich_*.orig.tar.*" >&2; exit 1; }
echo "$found"
