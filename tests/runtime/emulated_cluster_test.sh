#!/bin/bash
# scripts/emulated-cluster.sh (docs/emulated-cluster.md), up to down: three namespace hosts whose
# links are shaped (A, B 800 Mbit/s, C 160 Mbit/s with a 4 KB bucket given, as the fidelity loop
# does); 4 MB between A and C arrive at C's rate in both directions, and A to B faster; ssh
# reaches host B with the written key and known_hosts alone; status shows the rates and buckets
# (A's 1 ms at its rate, C's as given); down leaves no namespace, link, process or state folder. A
# second cluster whose host B computes at half a core (--cpu B=0.5) shows B, and only B, its
# speed where the runtime reads it, reports B's CPU model with the speed, runs B's sessions in
# B's cgroup (where there are cgroups) and shows the speed in status; its down leaves no cgroup
# either. An up that fails half-way removes what it made and nothing else, and without root it
# is refused.
# Given the folder of hetplan-cli, hetplan-worker and hetplan-probe, also probe --hosts on the
# written hosts file, then import: each host's link within 15 % of its shaped rate.
#   emulated_cluster_test.sh SOURCE_DIR [PROGRAMS_DIR]
# Exit 77 (CTest: skipped) only where this is not root or a tool is missing.
set -euo pipefail
script="$1/scripts/emulated-cluster.sh"
programs=${2:-}
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "emulated_cluster_test: $*" >&2; exit 1; }

((EUID == 0)) || skip "needs root (network namespaces)"
for tool in ip tc sshd ssh ssh-keygen python3 setpriv; do
    command -v "$tool" >/dev/null || skip "$tool is not installed (scripts/install-deps.sh)"
done
ip netns add "hpc-check-$$" 2>/dev/null || skip "network namespaces are not permitted here"
ip netns del "hpc-check-$$"

name=t$(($$ % 10000000)) broken=f$(($$ % 10000000)) # at most 8 characters
blocker=hpv-$broken-2
work=$(mktemp -d)
chmod 755 "$work"
cleanup() {
    "$script" down --name "$name" >/dev/null 2>&1 || true
    "$script" down --name "$broken" >/dev/null 2>&1 || true
    ip link del "$blocker" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Where the hosts' cgroups go (scripts/emulated-cluster.sh, cgroup_root); empty: none.
if [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
    cgroups=/sys/fs/cgroup/cpu
elif grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
    cgroups=/sys/fs/cgroup
else
    cgroups=""
fi

# What of cluster $1 exists: namespaces, links, processes, cgroups, state folder.
leftovers() {
    ip netns list | grep -E "^hpc-$1-" || true
    [ -z "$cgroups" ] || find "$cgroups" -maxdepth 1 -name "hpc-$1-*" || true
    ip -o link | grep -oE ": hp[bv]-$1(-[0-9]+)?[:@]" || true
    pgrep -af "hetplan-cluster/$1/" || true
    [ ! -e "/run/hetplan-cluster/$1" ] || echo "/run/hetplan-cluster/$1"
}

"$script" up --name "$name" --rate A=800mbit,B=800mbit,C=160mbit/4kb \
    ${programs:+--worker "$programs/hetplan-worker"} >"$work/up.txt" 2>&1 ||
    fail "up failed: $(cat "$work/up.txt")"
state=/run/hetplan-cluster/$name
grep -qx "state: $state" "$work/up.txt" || fail "up does not print its state folder"
read -r addr_a addr_b addr_c < <(python3 -c '
import json, sys
hosts = json.load(open(sys.argv[1]))
assert hosts["format"] == "hetplan.hosts/1", hosts
print(*[h["host"] for h in hosts["hosts"]])' "$state/hosts.json") || fail "no hosts.json"

# MB/s (1e6 bytes) that 4 MiB sent from host $1 arrive with at host $2 ($3), timed by the receiver
# from its first piece to the end.
transfer_MBps() {
    local out="$work/rx-$1$2"
    ip netns exec "hpc-$name-$2" timeout 60 python3 -c '
import socket, sys, time
s = socket.socket()
s.bind((sys.argv[1], 5001)); s.listen(1); print("ready", flush=True)
c, _ = s.accept(); first = None; n = 0
while (piece := c.recv(1 << 20)):
    if first is None:
        first = time.monotonic()
    else:
        n += len(piece)
print("%.2f" % (n / (time.monotonic() - first) / 1e6))' "$3" >"$out" &
    for ((try = 0; ; ++try)); do
        ! grep -q ready "$out" 2>/dev/null || break
        ((try < 200)) && kill -0 $! 2>/dev/null || fail "no receiver on host $2: $(cat "$out")"
        sleep 0.05
    done
    ip netns exec "hpc-$name-$1" timeout 60 python3 -c '
import socket, sys
socket.create_connection((sys.argv[1], 5001)).sendall(bytes(4 << 20))' "$3"
    wait $!
    tail -1 "$out"
}
# 160 Mbit/s is 20 MB/s on the wire; within 15 %.
for pair in "A C $addr_c" "C A $addr_a"; do
    read -r from to address <<<"$pair"
    rate=$(transfer_MBps "$from" "$to" "$address")
    echo "$from -> $to: $rate MB/s (shaped: 20 MB/s)"
    python3 -c 'import sys; sys.exit(not 17 <= float(sys.argv[1]) <= 23)' "$rate" ||
        fail "$from -> $to: $rate MB/s, not within 15 % of C's 160 Mbit/s"
done
fast=$(transfer_MBps A B "$addr_b")
echo "A -> B: $fast MB/s (shaped: 100 MB/s)"
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > 1.5 * 20)' "$fast" ||
    fail "A -> B: $fast MB/s, no faster than the link to C"

# The written key and known_hosts alone reach B, and the command runs in B's namespace.
seen=$(timeout 30 ssh -F /dev/null -i "$state/id_ed25519" -o BatchMode=yes \
    -o UserKnownHostsFile="$state/known_hosts" -o GlobalKnownHostsFile=/dev/null \
    -o StrictHostKeyChecking=yes "root@$addr_b" ip -4 -o addr show dev eth0) ||
    fail "ssh to B failed"
[[ $seen == *" $addr_b/24 "* ]] || fail "ssh to B ran elsewhere: $seen"

# The probe over SSH on the hosts file as written, and the import of what it measured: TCP
# carries 1448 bytes in each 1514-byte frame, 95.6 % of the shaped rate.
if [ -n "$programs" ]; then
    timeout 300 "$programs/hetplan-cli" probe --hosts "$state/hosts.json" --no-gpu --quick \
        --known-hosts "$state/known_hosts" --out "$work/probe.json" >"$work/probe.txt" 2>&1 ||
        fail "probe --hosts failed: $(tail -20 "$work/probe.txt")"
    "$programs/hetplan-cli" import "$work/probe.json" --out "$work/cluster.json" \
        >"$work/import.txt" 2>&1 || fail "import of the probe failed: $(cat "$work/import.txt")"
    # On a miss, what the probe measured and flagged and what import left out name the cause.
    cause() {
        echo "the probe's pairs and flags:"
        sed -n '/ GB\/s at /p; /measuring it again/p; /plausibility flag/,$p' "$work/probe.txt"
        echo "import's notes:"
        sed -n '/^Notes:/,$p' "$work/import.txt"
    }
    python3 -c '
import json, sys
links = {l["a"]: l["bandwidth_GBps"] for l in json.load(open(sys.argv[1]))["links"]}
shaped = {"A": 0.1, "B": 0.1, "C": 0.02}
for m, GBps in shaped.items():
    print("imported link of %s: %.4f GB/s (shaped: %.3f GB/s)" % (m, links[m], GBps))
    if abs(links[m] / GBps - 1) > 0.15:
        sys.exit("not within 15 %")' "$work/cluster.json" ||
        fail "import did not recover the rates; $(cause)"
fi

"$script" status --name "$name" >"$work/status.txt"
grep -qE "^C $addr_c .*out: rate 160Mbit burst 40[0-9]{2}b .*in: rate 160Mbit burst 40[0-9]{2}b" \
    "$work/status.txt" &&
    grep -qE "^A $addr_a .*out: rate 800Mbit burst 100000b .*in: rate 800Mbit" "$work/status.txt" ||
    fail "status does not show the rates and buckets: $(cat "$work/status.txt")"

"$script" down --name "$name" >/dev/null
left=$(leftovers "$name")
[ -z "$left" ] || fail "down left: $left"
! "$script" down --name "$name" 2>/dev/null || fail "a second down found something to remove"

# Host B's compute speed: a session there finds it where hetplan-worker and hetplan-probe read
# it (runtime/model/compute_pace.h) and A's does not, B's CPU model names it (so import makes a
# CPU type of its own), B's sessions run in B's cgroup where there are cgroups, status shows
# it, and down removes the cgroup and, with the last cluster, the speeds' mount point.
"$script" up --name "$name" --hosts 2 --cpu B=0.5 >"$work/speed.txt" 2>&1 ||
    fail "up with a compute speed failed: $(cat "$work/speed.txt")"
on() { timeout 30 ssh -F "$state/ssh_config" "$@"; }
speed_file=/run/hetplan-cluster/this-host/compute-speed
[ "$(on B cat "$speed_file")" = 0.5 ] || fail "B does not find its speed at $speed_file"
! on A test -e "$speed_file" || fail "A, given no speed, finds one: $(on A cat "$speed_file")"
[ ! -e "$speed_file" ] || fail "this machine, outside the hosts, finds a speed at $speed_file"
model=$(on B 'grep -m1 "model name" /proc/cpuinfo')
[[ $model == *"(emulated, 0.5 cores)" ]] || fail "B's CPU model does not name its speed: $model"
if [ -n "$cgroups" ]; then
    on B cat /proc/self/cgroup | grep -qE "(^[0-9]+:cpu(,[a-z]+)?:|^0::)/hpc-$name-B\$" ||
        fail "a session on B is not in B's cgroup: $(on B cat /proc/self/cgroup)"
fi
"$script" status --name "$name" >"$work/status.txt"
grep -qE "^B .*cpu: 0.5 of a core" "$work/status.txt" && grep -qE "^A .*cpu: full speed" "$work/status.txt" ||
    fail "status does not show the compute speeds: $(cat "$work/status.txt")"
"$script" down --name "$name" >/dev/null
left=$(leftovers "$name")
[ -z "$left" ] || fail "down left: $left"
if [ -z "$(find /run/hetplan-cluster -mindepth 1 -maxdepth 1 ! -name this-host 2>/dev/null)" ]; then
    [ ! -e /run/hetplan-cluster ] || fail "the last down left /run/hetplan-cluster: $(ls -A /run/hetplan-cluster)"
fi

# Host C's link name is taken: up fails at C, removes A, B, the bridge, the sshds, their cgroups
# and the state folder, and leaves the link it did not make.
ip link add "$blocker" type veth peer name "hpx-$broken-2"
if "$script" up --name "$broken" --cpu A=0.5,B=0.5 >"$work/broken.txt" 2>&1; then
    fail "up did not fail"
fi
grep -q "up failed; removing what it made" "$work/broken.txt" || fail "$(cat "$work/broken.txt")"
left=$(leftovers "$broken" | grep -v "^: $blocker" || true)
[ -z "$left" ] || fail "a failed up left: $left"
ip link show "$blocker" >/dev/null || fail "a failed up removed a link it had not made"

# Not root: refused before anything is made.
cp "$script" "$work/emulated-cluster.sh"
status=0
setpriv --reuid 65534 --regid 65534 --clear-groups "$work/emulated-cluster.sh" up \
    --name "$name" >"$work/user.txt" 2>&1 || status=$?
((status == 2)) && grep -q "must be run as root" "$work/user.txt" ||
    fail "not refused as a user (exit $status): $(cat "$work/user.txt")"
[ -z "$(leftovers "$name")" ] || fail "a refused up made something"
echo "emulated cluster: rates within 15 %, ssh with the written files, nothing left after down"
