#!/bin/sh
# A stand-in for mpirun: "fake-mpirun.sh -np N PROGRAM ARGS..." starts N
# copies with PMI_RANK=0..N-1 (as MPICH's hydra does) and waits for them.
[ "$1" = "-np" ] || { echo "usage: $0 -np N PROGRAM ARGS..." >&2; exit 2; }
n=$2
shift 2
r=0
pids=""
while [ "$r" -lt "$n" ]; do
  PMI_RANK=$r "$@" &
  pids="$pids $!"
  r=$((r + 1))
done
status=0
for p in $pids; do
  wait "$p" || status=$?
done
exit $status
