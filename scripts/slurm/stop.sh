#!/usr/bin/env bash
# Stop the daemons started by slurm-start.sh (by their pid files) and remove DIR.
# The Slurm daemons and munged first; then the MariaDB of SLURM_ACCOUNTING=1, if any (slurmdbd writes to it while it stops).
set -uo pipefail
D=${1:?usage: slurm-stop.sh DIR}
stop_pids() {   # pid files: TERM, up to 5 s, then SIGKILL what is left
  local pids=() f p i alive
  for f in "$@"; do
    [ -s "$f" ] && p=$(cat "$f") && kill "$p" 2>/dev/null && pids+=("$p")
  done
  for i in $(seq 1 50); do
    alive=0; for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && [ "$(ps -o stat= -p "$p" | cut -c1)" != Z ] && alive=1; done
    [ $alive = 0 ] && break; sleep 0.1
  done
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && kill -9 "$p" 2>/dev/null; done
}
stop_pids "$D/rest/restd.pid" "$D/slurmd.pid" "$D/slurmctld.pid" "$D/slurmdbd.pid" "$D/run/munge/munged.pid"
[ -s "$D/mariadb/mysqld.pid" ] && stop_pids "$D/mariadb/mysqld.pid"
rm -rf "$D"
