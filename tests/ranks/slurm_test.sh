#!/bin/sh
# tests/ranks/slurm_test.sh: the examples/slurm map/reduce on a real one-node Slurm, then the
# xargs -P form. Installs Debian's slurmctld, slurmd, slurm-client and munge when missing (root
# only), starts munged, slurmctld and slurmd on localhost with their config, key and state in a
# temporary directory, submits the job array and the reduce job (afterok) with examples/slurm/
# submit.sh, waits for them and checks that the merged report equals `kinesift ranks` over the
# traces directly; stops exactly the daemons it started. Where Slurm cannot be started it says
# so in one line and only the xargs form runs (that part must pass).
#   env: KINESIFT (binary), KS_CORPUS, KS_SOURCE_ROOT
set -u
T=$(mktemp -d /tmp/ks-slurm-XXXXXX)
PIDS=""
cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    sleep 1
    for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
ROOT=${KS_SOURCE_ROOT:?}
K=${KINESIFT:?}
SRC=${KS_CORPUS:?}/hta/nccl_parser_config/nccl_data.json.gz

python3 "$ROOT/scripts/make_ranks.py" "$SRC" "$T/ranks" --ranks 3 --straggler 1 --seed 5 || fail "generator"
ls "$T"/ranks/rank-*.json.gz >"$T/list.txt"
"$K" ranks --quiet "$T/ranks" >"$T/direct.txt" || fail "ranks over the traces"

# the xargs -P form: always
KINESIFT=$K sh "$ROOT/examples/slurm/xargs.sh" "$T/list.txt" "$T/xsums" "$T/xargs.txt" 2 || fail "xargs.sh"
cmp -s "$T/direct.txt" "$T/xargs.txt" || fail "the xargs -P report differs from the direct one"
echo "xargs -P: merged report = direct report"

skip() { echo "slurm: not tested: $*"; exit 0; }
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null ||
    ! command -v munged >/dev/null; then
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || skip "Slurm is not installed and this is not a root Debian host"
    apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge >"$T/apt.log" 2>&1 ||
        skip "apt-get install slurmctld slurmd slurm-client munge failed (see its log)"
fi
[ "$(id -u)" = 0 ] || skip "the daemons need root here (SlurmUser root)"

# munge with its own key and socket
mkdir -p "$T/munge" && chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/key" bs=1024 count=1 2>/dev/null && chmod 600 "$T/munge/key"
munged --force --key-file="$T/munge/key" --socket="$T/munge/sock" --pid-file="$T/munge/pid" \
    --log-file="$T/munge/log" --seed-file="$T/munge/seed" >/dev/null 2>&1 || skip "munged does not start"
sleep 1
PIDS="$PIDS $(cat "$T/munge/pid")"

H=$(hostname -s)
CPUS=$(nproc)
PORT=$((17000 + $$ % 1000))
mkdir -p "$T/state" "$T/spool"
cat >"$T/slurm.conf" <<CONF
ClusterName=kstest
SlurmctldHost=$H
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
AuthInfo=socket=$T/munge/sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
NodeName=$H CPUs=$CPUS State=UNKNOWN
PartitionName=ks Nodes=$H Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$T/slurm.conf
slurmctld -c -i -f "$T/slurm.conf" >/dev/null 2>&1 || skip "slurmctld does not start ($(tail -1 "$T/slurmctld.log" 2>/dev/null))"
sleep 2
[ -f "$T/slurmctld.pid" ] && PIDS="$PIDS $(cat "$T/slurmctld.pid")"
slurmd -f "$T/slurm.conf" -N "$H" >/dev/null 2>&1 || skip "slurmd does not start ($(tail -1 "$T/slurmd.log" 2>/dev/null))"
sleep 2
[ -f "$T/slurmd.pid" ] && PIDS="$PIDS $(cat "$T/slurmd.pid")"
i=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
    i=$((i + 1))
    [ "$i" -lt 30 ] || skip "the node never became idle ($(sinfo -h -o '%t %E' 2>&1 | head -1))"
    sleep 1
done

cd "$T"
ids=$(KINESIFT=$K sh "$ROOT/examples/slurm/submit.sh" "$T/list.txt" "$T/sums" "$T/slurm.txt") || fail "submit.sh"
i=0
while [ -n "$(squeue -h -j "$(echo "$ids" | tr ' ' ',')" 2>/dev/null)" ]; do
    i=$((i + 1))
    [ "$i" -lt 300 ] || fail "the jobs $ids did not finish in 300 s"
    sleep 1
done
[ -s "$T/slurm.txt" ] || fail "the reduce job wrote no report (jobs $ids; $(ls "$T"/slurm-*.out 2>/dev/null | head -3))"
cmp -s "$T/direct.txt" "$T/slurm.txt" || fail "the Slurm report differs from the direct one"
echo "slurm: job array $ids: merged report = direct report"
