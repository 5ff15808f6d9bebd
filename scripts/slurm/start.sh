#!/usr/bin/env bash
# A throwaway single-node Slurm (Debian's slurm-wlm 22.05) on localhost, for the tests and for trying
# `gdflow serve --executor slurm`. As root. Needs: apt-get install slurm-wlm (munge comes with it).
#   eval "$(scripts/slurm/start.sh [DIR])"   exports SLURM_CONF and SLURM_TMP; stop: scripts/slurm/stop.sh "$SLURM_TMP"
# SLURMCTLD_PORT / SLURMD_PORT (default 6817/6818) let two clusters run on one machine; SLURM_TEST_CPUS sets the
# node's CPUs. Jobs' memory limits (--mem) are enforced by sampling (jobacct_gather/linux with OverMemoryKill,
# every second): a job over its limit is killed and ends OUT_OF_MEMORY.
# Accounting (sacct), off by default: SLURM_ACCOUNTING=1 adds slurmdbd with its own throwaway MariaDB (DIR/mariadb,
# 127.0.0.1:${DB_PORT:-33061}, socket in DIR; apt-get installs slurmdbd and mariadb-server if missing) and registers
# account ${SLURM_TEST_ACCOUNT:-test} with the calling user in it, for `sacct` and `snakemake --slurm`; stop.sh stops
# all of it. SLURM_TEST_ACCT=1 adds slurmdbd only, for a MariaDB/MySQL already running (DB_HOST, DB_PORT, DB_USER,
# DB_PASS, DB_NAME). SLURMDBD_PORT (default 6819) and DB_PORT let two such clusters run on one machine.
set -euo pipefail
unset SLURM_JWT   # if set, Slurm daemons/commands switch to auth/jwt
D=${1:-$(mktemp -d /tmp/slurmtest.XXXXXX)}
chmod 0755 "$D" 2>/dev/null || mkdir -p "$D"; chmod 0755 "$D"
mkdir -p "$D/state" "$D/spool" "$D/log" "$D/run/munge"
# --- munge (own socket/pid/log in $D, key from the Debian package) ---
[ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key
chown munge:munge "$D/run/munge"; chmod 0755 "$D/run/munge"
MUNGE_SOCK="$D/run/munge/munge.socket.2"
runuser -u munge -- /usr/sbin/munged --socket="$MUNGE_SOCK" \
  --pid-file="$D/run/munge/munged.pid" --log-file="$D/run/munge/munged.log" --seed-file="$D/run/munge/munged.seed" \
  --force
cleanup_on_fail() { for f in "$D/slurmd.pid" "$D/slurmctld.pid" "$D/slurmdbd.pid" "$D/mariadb/mysqld.pid" "$D/run/munge/munged.pid"; do [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null; done; }
trap 'cleanup_on_fail' ERR
if [ "${SLURM_ACCOUNTING:-0}" = 1 ]; then   # a throwaway MariaDB for slurmdbd, then as SLURM_TEST_ACCT=1
  if [ ! -x /usr/sbin/slurmdbd ] || [ ! -x /usr/sbin/mariadbd ]; then
    echo "SLURM_ACCOUNTING=1: installing slurmdbd and mariadb-server (about 30 s)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurmdbd mariadb-server >"$D/log/apt.log" 2>&1 ||
      { echo "apt-get install slurmdbd mariadb-server failed" >&2; tail -5 "$D/log/apt.log" >&2; cleanup_on_fail; exit 1; }
  fi
  M="$D/mariadb"; mkdir -p "$M"
  DB_HOST=127.0.0.1; DB_PORT=${DB_PORT:-33061}; DB_USER=${DB_USER:-slurm}; DB_PASS=${DB_PASS:-slurmpw}; DB_NAME=${DB_NAME:-slurm_acct_db}
  mariadb-install-db --no-defaults --datadir="$M/data" --user=root --auth-root-authentication-method=normal \
    --skip-test-db >"$M/install.log" 2>&1 || { echo "mariadb-install-db failed" >&2; tail -5 "$M/install.log" >&2; cleanup_on_fail; exit 1; }
  setsid /usr/sbin/mariadbd --no-defaults --datadir="$M/data" --socket="$M/mysqld.sock" --pid-file="$M/mysqld.pid" \
    --bind-address=127.0.0.1 --port="$DB_PORT" --user=root --skip-name-resolve --innodb-buffer-pool-size=64M \
    --innodb-flush-log-at-trx-commit=0 --innodb-lock-wait-timeout=900 --log-error="$M/mysqld.err" </dev/null >/dev/null 2>&1 &
  deadline=$((SECONDS + 30))
  until mariadb --no-defaults -S "$M/mysqld.sock" -uroot -e 'select 1' >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { echo "mariadbd did not start" >&2; tail -5 "$M/mysqld.err" >&2; cleanup_on_fail; exit 1; }
    sleep 0.1
  done
  mariadb --no-defaults -S "$M/mysqld.sock" -uroot -e \
    "CREATE USER '$DB_USER'@'%' IDENTIFIED BY '$DB_PASS'; GRANT ALL ON $DB_NAME.* TO '$DB_USER'@'%';"
  SLURM_TEST_ACCT=1
fi
# --- slurm.conf ---
MEM=$(( $(awk '/MemTotal/{print $2}' /proc/meminfo) / 1024 - 1024 ))
CPUS=${SLURM_TEST_CPUS:-$(nproc)}
ACCT_LINES="AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
JobAcctGatherParams=OverMemoryKill"
if [ "${SLURM_TEST_ACCT:-0}" = 1 ]; then   # optional: slurmdbd + a running MariaDB/MySQL for sacct
  ACCT_LINES="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=${SLURMDBD_PORT:-6819}
AccountingStoragePass=$MUNGE_SOCK
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
JobAcctGatherParams=OverMemoryKill"
  cat >"$D/slurmdbd.conf" <<DBD
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCK
DbdHost=localhost
DbdPort=${SLURMDBD_PORT:-6819}
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=${DB_HOST:-127.0.0.1}
StoragePort=${DB_PORT:-33061}
StorageUser=${DB_USER:-slurm}
StoragePass=${DB_PASS:-slurmpw}
StorageLoc=${DB_NAME:-slurm_acct_db}
LogFile=$D/log/slurmdbd.log
PidFile=$D/slurmdbd.pid
DBD
  chmod 0600 "$D/slurmdbd.conf"
fi
JWT_LINES=""
if [ "${SLURM_TEST_JWT:-0}" = 1 ]; then   # optional: JWT auth for slurmrestd over TCP
  dd if=/dev/urandom of="$D/jwt_hs256.key" bs=32 count=1 status=none; chmod 0600 "$D/jwt_hs256.key"
  JWT_LINES="AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$D/jwt_hs256.key"
fi
cat >"$D/slurm.conf" <<CONF
ClusterName=testcluster
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCK
CredType=cred/munge
$JWT_LINES
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
ReturnToService=2
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
SlurmctldPort=${SLURMCTLD_PORT:-6817}
SlurmdPort=${SLURMD_PORT:-6818}
$ACCT_LINES
JobCompType=jobcomp/filetxt
JobCompLoc=$D/log/jobcomp.log
MinJobAge=3600
MailProg=/bin/true
DefMemPerCPU=512
SchedulerParameters=${SLURM_TEST_SCHED_PARAMS:-batch_sched_delay=0}
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$D/slurm.conf"
if [ "${SLURM_TEST_ACCT:-0}" = 1 ]; then
  /usr/sbin/slurmdbd      # reads $(dirname $SLURM_CONF)/slurmdbd.conf
  deadline=$((SECONDS + 30))
  until timeout 5 sacctmgr -n list cluster >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || { echo "slurmdbd not answering" >&2; tail -5 "$D/log/slurmdbd.log" >&2; cleanup_on_fail; exit 1; }
    sleep 0.2
  done
  timeout 10 sacctmgr -i add cluster testcluster >/dev/null
  if [ "${SLURM_ACCOUNTING:-0}" = 1 ]; then
    timeout 10 sacctmgr -i add account "${SLURM_TEST_ACCOUNT:-test}" Cluster=testcluster Description=test Organization=test >/dev/null
    timeout 10 sacctmgr -i add user "$(id -un)" Account="${SLURM_TEST_ACCOUNT:-test}" Cluster=testcluster >/dev/null
  fi
fi
/usr/sbin/slurmctld -f "$SLURM_CONF"
/usr/sbin/slurmd -f "$SLURM_CONF" -N localhost
# wait until the node is idle (deadline 30 s; fail fast if a daemon died)
deadline=$((SECONDS + 30)); st=""
while [ $SECONDS -lt $deadline ]; do
  # The daemon writes its pid file a moment after it forks: a missing file is not yet a death.
  if [ -s "$D/slurmctld.pid" ] && ! kill -0 "$(cat "$D/slurmctld.pid")" 2>/dev/null; then
    echo "slurmctld died" >&2; tail -5 "$D/log/slurmctld.log" >&2; cleanup_on_fail; exit 1
  fi
  st=$(timeout 5 sinfo -h -N -o %t 2>/dev/null || true)
  [ "$st" = idle ] && break
  sleep 0.1
done
[ "$st" = idle ] || { echo "slurm node not idle: '$st'" >&2; tail -20 "$D/log/"*.log >&2; cleanup_on_fail; exit 1; }
echo "export SLURM_CONF=$SLURM_CONF SLURM_TMP=$D"
