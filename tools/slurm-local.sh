#!/usr/bin/env bash
# A throw-away single-node SLURM cluster on this host, for trying `llmsim sweep --backend slurm` and for the
# sweep tests. Needs Debian's slurm-wlm and munge packages (tools/setup.sh installs them) and root, or a user
# who may run slurmd (it starts jobs as their owner).
#
#   tools/slurm-local.sh start DIR   # munged + slurmctld + slurmd with all state in DIR; prints `export SLURM_CONF=...`
#   tools/slurm-local.sh stop DIR    # stops the three daemons started in DIR (by their pid files)
#
# DIR gets munge/ (key and socket), slurm.conf (one node = this host with all its CPUs, one partition "local",
# proctrack/linuxproc and task/none so that no cgroups are needed), state/, spool/, logs and pid files.
# Ports: $SLURM_LOCAL_PORT (default 6817) for slurmctld and the next one for slurmd.
# Exit codes of start: 0 ready, 3 a prerequisite is missing (the message says which), 1 a daemon did not come up.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)

# Stops the daemons whose pid files are given: SIGTERM to all, then up to 10 s, then SIGKILL.
stop_daemons() {
  local pids=() f pid
  for f in "$@"; do
    [ -f "$f" ] && pid=$(cat "$f") && [ -n "$pid" ] && kill "$pid" 2>/dev/null && pids+=("$pid")
    rm -f "$f"
  done
  for _ in $(seq 100); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && return 0
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
}

if [ "$cmd" = stop ]; then
  stop_daemons "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"
  exit 0
fi
[ "$cmd" = start ] || usage

missing() { echo "slurm-local: $1" >&2; exit 3; }
for tool in munged slurmctld slurmd sbatch squeue scontrol; do
  command -v "$tool" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin"
  command -v "$tool" >/dev/null 2>&1 || missing "$tool not found (apt-get install slurm-wlm munge, or tools/setup.sh)"
done
user=$(id -un)
[ "$(id -u)" -eq 0 ] || missing "slurmd must run as root to start jobs (running as $user)"

port=${SLURM_LOCAL_PORT:-6817}
if command -v ss >/dev/null 2>&1 && [ -n "$(ss -Htln "( sport = :$port or sport = :$((port + 1)) )")" ]; then
  echo "slurm-local: port $port or $((port + 1)) is in use (set SLURM_LOCAL_PORT to another pair)" >&2
  exit 1
fi
host=$(hostname -s)
chmod 700 "$dir"
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"

# munge: a fresh key and a private socket (slurm.conf's AuthInfo points the daemons and clients at it).
if [ ! -f "$dir/munge/munge.key" ]; then
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/munge.key"
fi
socket="$dir/munge/munge.socket"
munged --key-file="$dir/munge/munge.key" --socket="$socket" --pid-file="$dir/munged.pid" \
       --log-file="$dir/munged.log" --seed-file="$dir/munge/munge.seed" --force \
  || { echo "slurm-local: munged did not start: $(tail -1 "$dir/munged.log" 2>/dev/null)" >&2; exit 1; }

cpus=$(nproc)
cat >"$dir/slurm.conf" <<EOF
ClusterName=llmsim-local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0,sched_min_interval=100000
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"

fail() {  # a daemon did not come up: say why, stop what did
  echo "slurm-local: $1" >&2
  stop_daemons "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"
  exit 1
}
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
last_error() { grep -E 'fatal|error' "$1" 2>/dev/null | tail -1 || true; }

slurmctld -i -f "$SLURM_CONF" || fail "slurmctld did not start: $(last_error "$dir/slurmctld.log")"
slurmd -f "$SLURM_CONF" -N "$host" || fail "slurmd did not start: $(last_error "$dir/slurmd.log")"

# Ready when the node is idle (slurmd registered with slurmctld); at most 30 s.
deadline=$((SECONDS + 30))
state=none
while [ $SECONDS -lt $deadline ]; do
  sleep 0.2
  alive "$dir/slurmctld.pid" || fail "slurmctld exited: $(last_error "$dir/slurmctld.log")"
  alive "$dir/slurmd.pid" || fail "slurmd exited: $(last_error "$dir/slurmd.log")"
  state=$(timeout 5 sinfo -h -N -o %t 2>/dev/null | head -1 || true)
  if [ "$state" = idle ]; then
    echo "export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
done
fail "the node did not become idle in 30 s (state '${state:-none}'; see $dir/slurmctld.log, $dir/slurmd.log)"
