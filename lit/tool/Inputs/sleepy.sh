#!/bin/sh
# Waits to be signalled (decan must pass SIGTERM on); the pid file, written
# once the trap is set, tells the test when to send it.
trap 'echo "sleepy: got SIGTERM" >&2; exit 143' TERM
echo $$ > "$1"
while :; do sleep 0.1; done
