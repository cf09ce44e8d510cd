#!/bin/sh
# Install memcomm into a fresh prefix, then build the unchanged example program against the
# installed copy twice, with pkg-config and with CMake's find_package, linking memcomm before
# libmpi; run each and check the MPI_Pack calls were handled by memcomm (link-time
# interposition, no LD_PRELOAD).
# usage: install_check.sh BUILD_DIR SOURCE_DIR MPICC MPIEXEC
set -eu
build=$1 src=$2 mpicc=$3 mpiexec=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -n 1)

check_handled() { # program label
  MEMCOMM_STATS=1 "$mpiexec" -n 1 "$1" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
  if grep -q 'memcomm: rank 0 handled [1-9][0-9]* calls.*passed 0 calls' "$tmp/err"; then
    echo "ok: $2: linked program handled by memcomm"
  else
    echo "FAIL: $2: memcomm did not handle the calls"; cat "$tmp/err"; exit 1
  fi
}

# shellcheck disable=SC2046
"$mpicc" "$src/examples/halo_exchange.c" $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs memcomm) \
  -o "$tmp/halo_pkgconfig"
check_handled "$tmp/halo_pkgconfig" pkg-config

mkdir "$tmp/consumer"
cat >"$tmp/consumer/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(memcomm REQUIRED)
add_executable(halo "$src/examples/halo_exchange.c")
target_link_libraries(halo PRIVATE memcomm::memcomm MPI::MPI_C)
CMAKE
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DMPI_C_COMPILER="$mpicc" >"$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/consumer/build" >"$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
check_handled "$tmp/consumer/build/halo" "CMake find_package"
