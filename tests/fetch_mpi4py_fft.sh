#!/bin/bash
# Build mpi4py-fft (an FFT library whose redistributions are MPI_Alltoallw of subarray types)
# for tests/python/test_mpi4py_fft.py: its sdist from PyPI, built against FFTW from Debian's
# binary packages unpacked into the directory (tests/apt_private.sh: nothing installed on the
# machine), into <directory>/site; its own tests into <directory>/tests.
#
#   tests/fetch_mpi4py_fft.sh <directory> <venv python>
#
# Needs cython and wheel in that Python's environment (the project's dev extras).
set -euo pipefail
out=${1:?usage: $0 <directory> <python>}
python=${2:?usage: $0 <directory> <python>}
version=2.0.6
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out" && mkdir -p "$out/debs" "$out/fftw" "$out/sdist"
out=$(cd "$out" && pwd)
(cd "$out/debs" && "$here/apt_private.sh" deb download libfftw3-dev libfftw3-double3 libfftw3-single3 libfftw3-long3)
for deb in "$out"/debs/*.deb; do dpkg-deb -x "$deb" "$out/fftw"; done
libdir=$(dirname "$(find "$out/fftw" -name 'libfftw3.so' | head -1)")
[ -d "$libdir" ] || { echo "no libfftw3.so in the unpacked FFTW packages" >&2; exit 1; }
# the sdist's setup.py looks for FFTW even to say what it is, so these are set from here on
export FFTW_ROOT="$out/fftw/usr" FFTW_LIBRARY_DIR="$libdir" LDFLAGS="-Wl,-rpath,$libdir"
"$python" -m pip download --quiet --no-deps --no-build-isolation --no-binary mpi4py-fft \
    -d "$out/sdist" "mpi4py-fft==$version"
tar -xzf "$out"/sdist/mpi4py_fft-$version.tar.gz -C "$out/sdist"
"$python" -m pip install --quiet --no-deps --no-build-isolation --target "$out/site" \
    "$out/sdist/mpi4py_fft-$version"
mv "$out/sdist/mpi4py_fft-$version/tests" "$out/tests"
rm -rf "$out/debs" "$out/sdist"
echo "$out/site"
