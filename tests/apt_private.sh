#!/bin/bash
# Run apt-get against the machine's Debian sources without touching its apt configuration or
# state: the sources (as deb or as their deb-src counterparts) and the package lists go into a
# private state directory, removed at exit. Used to fetch what the tests build against
# (MPICH's sources, FFTW for mpi4py-fft) on a fresh Debian machine.
#
#   tests/apt_private.sh deb|deb-src APT-GET-ARGS...     (runs in the current directory)
#
# Says why and exits 1 when it cannot (no apt, no Debian sources, the registry not reached).
set -euo pipefail
kind=${1:?usage: $0 deb|deb-src APT-GET-ARGS...}
shift
case "$kind" in deb | deb-src) ;; *) echo "$0: deb or deb-src, not '$kind'" >&2; exit 1 ;; esac
command -v apt-get > /dev/null || { echo "no apt-get on this machine" >&2; exit 1; }
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
mkdir -p "$state/parts" "$state/lists/partial" "$state/cache/archives/partial"
# deb822 files (Types: deb) and one-line lists (deb URI SUITE ...)
for file in /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] && sed "s/^Types: deb\$/Types: $kind/" "$file" > "$state/parts/$(basename "$file")"
done
for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] && sed -n "s/^deb \\(.*\\)/$kind \\1/p" "$file" > "$state/parts/$(basename "$file").list"
done
apt=(apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$state/parts"
     -o Dir::State::Lists="$state/lists" -o Dir::Cache="$state/cache"
     -o APT::Sandbox::User=root)
"${apt[@]}" update > "$state/update.log" 2>&1 || { cat "$state/update.log" >&2; exit 1; }
"${apt[@]}" "$@" > "$state/run.log" 2>&1 || { cat "$state/run.log" >&2; exit 1; }
