#!/bin/sh
# An ssh stand-in for "hosts" that are network namespaces of this machine: the launcher
# (MPICH's hydra: -launcher ssh -launcher-exec; Open MPI's PRRTE: --prtemca plm_ssh_agent)
# calls it as `netns-ssh [options] host command...`, and it runs the command in the namespace
# that owns the address `host`, under a host name of its own (the namespace's name), so that
# the MPI takes the ranks for two nodes. Used by tests/python/test_netns.py; docs/timing.md.
while [ "${1#-}" != "$1" ]; do
    case $1 in
    -[bcDEeFIiJLlmOopQRSWw]) shift 2 ;; # ssh options that take a value
    *) shift ;;
    esac
done
host=$1
shift
for ns in $(ip netns list | cut -d' ' -f1); do
    if ip -n "$ns" -o -4 addr show | grep -q " inet $host/"; then
        exec ip netns exec "$ns" unshare --uts sh -c "hostname $ns && $*"
    fi
done
echo "netns-ssh: no network namespace has the address $host" >&2
exit 255
