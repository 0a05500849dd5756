#!/bin/sh
# Writes a pid file, then waits to be signalled (decan must pass SIGTERM on).
echo $$ > "$1"
trap 'echo "sleepy: got SIGTERM" >&2; exit 143' TERM
while :; do sleep 0.1; done
