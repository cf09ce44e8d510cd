#!/bin/bash
# Fetch MPICH's source tarball (for tests/mpich_test_suite.sh) from Debian's source package,
# with apt's own client (tests/apt_private.sh: the machine's apt configuration untouched).
#
#   tests/fetch_mpich_sources.sh <directory>
#
# Prints the tarball's path, or says why it could not and exits 1 (no apt, no Debian sources,
# the registry not reached).
set -euo pipefail
out=${1:?usage: $0 <directory>}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
found=$(ls "$out"/mpich_*.orig.tar.* 2>/dev/null | head -1 || true)
if [ -n "$found" ]; then
    echo "$found"
    exit 0
fi
(cd "$out" && "$here/apt_private.sh" deb-src source --download-only mpich)
found=$(ls "$out"/mpich_*.orig.tar.* 2>/dev/null | head -1 || true)
[ -n "$found" ] || { echo "apt-get source gave no mpich_*.orig.tar.*" >&2; exit 1; }
echo "$found"
