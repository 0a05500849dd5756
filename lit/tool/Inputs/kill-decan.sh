#!/bin/sh
# kill-decan.sh PIDFILE COMMAND...: starts COMMAND (a decan run) in the
# background, waits for the measured program to write its pid to PIDFILE,
# kills decan with SIGKILL and says whether the program was gone within a
# second (a zombie counts as gone: nobody may be there to reap it).
pidfile=$1
shift
"$@" 2>/dev/null &
decan=$!
n=0
while [ ! -s "$pidfile" ]; do
  n=$((n + 1))
  if [ $n -gt 1200 ]; then
    echo "no pid file after 120 s"
    kill -KILL $decan
    exit 1
  fi
  sleep 0.1
done
kill -KILL $decan
wait $decan 2>/dev/null
prog=$(cat "$pidfile")
alive() {
  [ -e /proc/$prog ] && [ "$(sed 's/.*) //' /proc/$prog/stat | cut -c1)" != Z ]
}
n=0
while alive && [ $n -lt 10 ]; do
  sleep 0.1
  n=$((n + 1))
done
if alive; then
  echo "program still running"
  kill -KILL $prog
  exit 1
fi
echo "program gone"
