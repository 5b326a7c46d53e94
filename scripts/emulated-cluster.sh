#!/bin/bash
# An emulated heterogeneous cluster on this machine (docs/emulated-cluster.md): network-namespace
# hosts, each joined by a veth pair to a bridge, each running its own sshd, each host's link
# shaped to its own rate with `tc qdisc ... tbf` in both directions, and, when asked, each host
# given a compute speed of its own (its hetplan-worker and hetplan-probe pace their compute to it).
# `up` writes a hetplan.hosts/1 file (docs/formats.md, "Hosts"), the user key and the
# known_hosts to use with it into the state folder it prints; `down` removes everything again.
# Run as root.
#
#   scripts/emulated-cluster.sh up     [--name NAME] [--hosts N] [--rate M=RATE,...]
#                                      [--cpu M=FRACTION,...] [--subnet 10.X.Y]
#                                      [--worker PATH] [--burst SIZE]
#   scripts/emulated-cluster.sh status [--name NAME]
#   scripts/emulated-cluster.sh down   [--name NAME]
#
# --name NAME    1 to 8 lower-case letters or digits (default emu); every namespace, link,
#                process and the state folder /run/hetplan-cluster/NAME carry it, and the
#                subnet is derived from it, so clusters of different names coexist
# --hosts N      hosts A, B, C, ... (default 3, at most 26)
# --rate LIST    each host's link rate as tc writes it (kbit, mbit, gbit), both directions,
#                and after a slash its tbf bucket where the rule of --burst should not decide
#                it (C=160mbit/4kb); hosts not named are not shaped (default
#                A=800mbit,B=800mbit,C=160mbit, of those hosts there are)
# --cpu LIST     each host's compute speed as a fraction of one core of this machine (0.3: its
#                forwards, backwards and optimizer steps take 1/0.3 of their time on a core):
#                the host's hetplan-worker and hetplan-probe pace their compute to it; hosts not
#                named compute at this machine's speed (default: none)
# --subnet P     the hosts' /24 as its first three numbers (default 10.79.K, K from the name);
#                the bridge in this namespace is P.1, host A P.2, B P.3, ...
# --worker PATH  the hetplan-worker the hosts file names (default: this checkout's
#                build/bin/hetplan-worker when built, else none: the one on the hosts' PATH)
# --burst SIZE   tbf's smallest bucket (default 16kb: with a large bucket small messages pass
#                unshaped); a link's bucket is the larger of it and 1 ms at its rate, unless
#                --rate gives the link's own
#
# Exit codes: 0 done, 1 a step failed (up removes what it had made), 2 bad use, not root or a
# tool missing.
set -euo pipefail

me=emulated-cluster
die() { echo "$me: $*" >&2; exit 1; }
usage() { echo "$me: $*; see the header of $0" >&2; exit 2; }

command=${1:-}
[ $# -gt 0 ] && shift
name=emu hosts=3 rates="" cpus="" subnet="" worker="" burst=16kb
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage "option '$1' needs a value"
    case "$1" in
    --name) name=$2 ;;
    --hosts) hosts=$2 ;;
    --rate) rates=$2 ;;
    --cpu) cpus=$2 ;;
    --subnet) subnet=$2 ;;
    --worker) worker=$2 ;;
    --burst) burst=$2 ;;
    *) usage "unknown option '$1'" ;;
    esac
    shift 2
done
case $command in up | down | status) ;; *) usage "say up, down or status" ;; esac
[[ $name =~ ^[a-z0-9]{1,8}$ ]] || usage "--name takes 1 to 8 lower-case letters or digits"
[[ $hosts =~ ^[0-9]+$ ]] && ((hosts >= 1 && hosts <= 26)) || usage "--hosts takes 1 to 26"
[[ $burst =~ ^[0-9]+(b|kb|mb)?$ ]] || usage "--burst takes a size such as 16kb"

((EUID == 0)) || { echo "$me: must be run as root (it creates network namespaces)" >&2; exit 2; }
missing=()
for tool in ip tc sshd ssh-keygen; do
    command -v "$tool" >/dev/null || missing+=("$tool")
done
[ -r /usr/share/openssh/sshd_config ] || missing+=(/usr/share/openssh/sshd_config)
if ((${#missing[@]})); then
    echo "$me: missing ${missing[*]} (Debian: iproute2, openssh-server, openssh-client)" >&2
    exit 2
fi

state=/run/hetplan-cluster/$name
bridge=hpb-$name
letters=(A B C D E F G H I J K L M N O P Q R S T U V W X Y Z)
namespace() { echo "hpc-$name-$1"; }
veth() { echo "hpv-$name-$1"; } # this namespace's end of host number $1's pair

# The namespaces of this cluster that exist, by name.
our_namespaces() { ip netns list | awk -v p="hpc-$name-" 'index($1, p) == 1 { print $1 }'; }

# The cgroups that weight the paced hosts' CPU share: one per host under the cpu controller's
# hierarchy, v1 (/sys/fs/cgroup/cpu) or v2 (/sys/fs/cgroup with "cpu" among its controllers);
# empty when neither is mounted.
cgroup_root() {
    if [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
        echo /sys/fs/cgroup/cpu
    elif grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
        echo /sys/fs/cgroup
    fi
}
cgroup_of() { echo "$(cgroup_root)/hpc-$name-$1"; } # host $1's
our_cgroups() {
    local root
    root=$(cgroup_root)
    [ -z "$root" ] || find "$root" -maxdepth 1 -type d -name "hpc-$name-?" 2>/dev/null
}

# Removes the namespaces (their processes first: the sshd and whatever sessions it serves), the
# cgroups (once the processes in them are gone), the bridge and the state folder. A namespace's
# veth pair goes with it.
teardown() {
    local ns pid cgroup try
    for ns in $(our_namespaces); do
        for pid in $(ip netns pids "$ns"); do kill -TERM "$pid" 2>/dev/null || true; done
        sleep 0.2
        for pid in $(ip netns pids "$ns"); do kill -KILL "$pid" 2>/dev/null || true; done
        ip netns del "$ns"
    done
    for cgroup in $(our_cgroups); do
        for pid in $(cat "$cgroup/cgroup.procs"); do kill -KILL "$pid" 2>/dev/null || true; done
        for ((try = 0; try < 50; ++try)); do # a killed process leaves its cgroup when reaped
            rmdir "$cgroup" 2>/dev/null && break
            sleep 0.1
        done
        [ ! -d "$cgroup" ] || echo "$me: could not remove $cgroup" >&2
    done
    if ip link show "$bridge" >/dev/null 2>&1; then ip link del "$bridge"; fi
    rm -rf "$state"
    # The mount point of the hosts' speeds goes with the last cluster.
    if [ -z "$(find "$(dirname "$state")" -mindepth 1 -maxdepth 1 ! -name this-host 2>/dev/null)" ]; then
        rmdir "$(dirname "$state")/this-host" 2>/dev/null || true
        rmdir "$(dirname "$state")" 2>/dev/null || true
    fi
}

# "rate 800Mbit burst 16Kb" of the tbf on a device, or "unshaped".
shaping() { # [ip -n NS] DEV
    local out
    out=$(tc "${@:1:$#-1}" qdisc show dev "${!#}" root 2>/dev/null | grep -o 'rate [^ ]* burst [^ ]*' || true)
    echo "${out:-unshaped}"
}

# "0.3 of a core" of host $1's compute, or "full speed".
speed_of() {
    local file=$state/hosts/$1/run/compute-speed
    if [ -f "$file" ]; then echo "$(cat "$file") of a core"; else echo "full speed"; fi
}

if [ "$command" = status ]; then
    [ -f "$state/cluster.env" ] || die "no cluster '$name' is up (no $state/cluster.env)"
    # shellcheck source=/dev/null
    . "$state/cluster.env"
    echo "cluster $name: bridge $bridge $subnet.1/24, state $state"
    for ((i = 0; i < hosts; ++i)); do
        ns=$(namespace "${letters[i]}")
        if our_namespaces | grep -qx "$ns"; then
            printf '%s %s %s  out: %s  in: %s  cpu: %s\n' "${letters[i]}" "$subnet.$((i + 2))" \
                "$ns" "$(shaping -n "$ns" eth0)" "$(shaping "$(veth "$i")")" \
                "$(speed_of "${letters[i]}")"
        else
            printf '%s %s %s  MISSING\n' "${letters[i]}" "$subnet.$((i + 2))" "$ns"
        fi
    done
    exit 0
fi

if [ "$command" = down ]; then
    [ -n "$(our_namespaces)" ] || [ -d "$state" ] || ip link show "$bridge" >/dev/null 2>&1 ||
        [ -n "$(our_cgroups)" ] || die "no cluster '$name' is up"
    teardown
    echo "cluster $name removed"
    exit 0
fi

# --- up ----------------------------------------------------------------------------------------
if [ -z "$rates" ]; then # the default, for the hosts there are
    defaults=(A=800mbit B=800mbit C=160mbit)
    rates=$(IFS=,; echo "${defaults[*]:0:hosts}")
fi
# A link's bucket: --burst, or 1 ms at its rate where that is more (100 KB at 800 Mbit/s, 20 KB
# at 160 Mbit/s). The kernel refills it on a timer, and on a virtual machine whose timers fire
# late (80-100 us seen) a bucket of 16 KB at 800 Mbit/s (0.16 ms) delivered 40 % below the rate
# through the two ends in series; 100 KB delivered it.
# A bucket given with the rate (C=160mbit/4kb) is taken as it is: one smaller than a message
# keeps that message at the rate (docs/emulated-cluster.md, "Buckets").
bucket_of() { # RATE [GIVEN] -> bytes
    awk -v r="$1" -v b="$burst" -v given="${2:-}" 'function bytes(s, n) {
            n = s + 0; if (s ~ /kb$/) n *= 1024; else if (s ~ /mb$/) n *= 1048576; return n }
        BEGIN { if (given != "") { printf "%d\n", bytes(given); exit }
            bits = r + 0; if (r ~ /kbit$/) bits *= 1e3; else if (r ~ /mbit$/) bits *= 1e6
            else if (r ~ /gbit$/) bits *= 1e9
            at_rate = bits / 8 * 0.001; floor = bytes(b)
            printf "%d\n", (at_rate > floor ? at_rate : floor) }'
}

declare -A rate_of bucket_bytes
IFS=, read -ra entries <<<"$rates"
for entry in "${entries[@]}"; do
    [[ $entry =~ ^([A-Z])=([0-9]+(\.[0-9]+)?(kbit|mbit|gbit))(/([0-9]+(b|kb|mb)?))?$ ]] ||
        usage "--rate entry '$entry' is not MACHINE=RATE or MACHINE=RATE/BUCKET (e.g. C=160mbit, C=160mbit/4kb)"
    machine=${BASH_REMATCH[1]}
    [[ " ${letters[*]:0:hosts} " == *" $machine "* ]] ||
        usage "--rate names $machine, but the hosts are ${letters[*]:0:hosts}"
    rate_of[$machine]=${BASH_REMATCH[2]}
    bucket_bytes[$machine]=$(bucket_of "${BASH_REMATCH[2]}" "${BASH_REMATCH[6]}")
    ((bucket_bytes[$machine] >= 2048)) ||
        usage "--rate $entry: a bucket under 2kb cannot hold a full packet"
done
declare -A cpu_of
if [ -n "$cpus" ]; then
    IFS=, read -ra entries <<<"$cpus"
    for entry in "${entries[@]}"; do
        [[ $entry =~ ^([A-Z])=([0-9]*\.?[0-9]+)$ ]] ||
            usage "--cpu entry '$entry' is not MACHINE=CORES (e.g. C=0.3)"
        machine=${BASH_REMATCH[1]}
        [[ " ${letters[*]:0:hosts} " == *" $machine "* ]] ||
            usage "--cpu names $machine, but the hosts are ${letters[*]:0:hosts}"
        awk -v c="${BASH_REMATCH[2]}" 'BEGIN { exit !(c >= 0.01 && c <= 1) }' ||
            usage "--cpu $machine=${BASH_REMATCH[2]}: a host's speed is 0.01 to 1 of a core"
        cpu_of[$machine]=${BASH_REMATCH[2]}
    done
fi
if [ -z "$subnet" ]; then
    subnet=10.79.$((1 + $(cksum <<<"$name" | cut -d' ' -f1) % 250))
fi
[[ $subnet =~ ^10\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || usage "--subnet takes 10.X.Y"
if [ -z "$worker" ] && [ -x "$(dirname "$0")/../build/bin/hetplan-worker" ]; then
    worker=$(cd "$(dirname "$0")/../build/bin" && pwd)/hetplan-worker
fi
[ -z "$worker" ] || [[ $worker == /* && -x $worker ]] ||
    usage "--worker takes the absolute path of an executable"

[ -z "$(our_namespaces)" ] && [ -z "$(our_cgroups)" ] && ! ip link show "$bridge" >/dev/null 2>&1 &&
    [ ! -e "$state" ] ||
    die "cluster '$name' is already up (or left over): run '$0 down --name $name' first"
if ip -o -4 addr show | grep -q " $subnet\.[0-9]*/"; then
    die "subnet $subnet.0/24 is in use here (another cluster?); choose another --name or --subnet"
fi

trap 'exit 130' INT TERM
trap 'status=$?; if ((status)); then echo "$me: up failed; removing what it made" >&2; teardown; exit 1; fi' EXIT
mkdir -p "$state" /run/sshd
chmod 700 "$state"
ssh-keygen -q -t ed25519 -N '' -C "hetplan-cluster-$name" -f "$state/id_ed25519"

# sshd refuses keys under a group- or world-writable folder unless StrictModes is off
# (sshd_config(5)); only then is it turned off.
strict=yes
dir=$state
while [ "$dir" != / ]; do
    dir=$(dirname "$dir")
    dir_mode=$(stat -c %a "$dir")
    if ((8#$dir_mode & 8#022)); then strict=no; fi
done

ip link add "$bridge" type bridge
ip addr add "$subnet.1/24" dev "$bridge"
ip link set "$bridge" up

# tbf on DEV: RATE with BUCKET; 50 ms of queue, so TCP reaches the rate without loss.
shape() { # [-n NS] DEV RATE BUCKET
    tc "${@:1:$#-3}" qdisc add dev "${@: -3:1}" root tbf rate "${@: -2:1}" \
        burst "${!#}" latency 50ms
}

# Host $1's compute speed, $2 of a core: the file its hetplan-worker and hetplan-probe read
# (mounted in the host's mount namespace only, runtime/model/compute_pace.h). They compute, then
# wait, so that compute takes its CPU time / $2; their messages and the network stack run at the
# core's speed, as on a host whose accelerator is slower than its CPU. (A CPU quota would stall
# the whole host, messages too, until its next period.) Where a cgroup cpu controller is mounted
# the host also gets a weight 8 times the default, so that it gets its share while other work
# keeps this machine busy.
set_speed() {
    mkdir -p "$state/hosts/$1/run"
    echo "$2" >"$state/hosts/$1/run/compute-speed"
    local root cgroup
    root=$(cgroup_root)
    [ -n "$root" ] && [ -w "$root" ] || return 0
    cgroup=$(cgroup_of "$1")
    mkdir "$cgroup"
    if [ -f "$cgroup/cpu.shares" ]; then
        echo 8192 >"$cgroup/cpu.shares"
    else
        grep -qw cpu "$root/cgroup.subtree_control" || echo +cpu >"$root/cgroup.subtree_control"
        echo 800 >"$cgroup/cpu.weight"
    fi
}

: >"$state/known_hosts"
hosts_json=""
for ((i = 0; i < hosts; ++i)); do
    machine=${letters[i]} address=$subnet.$((i + 2))
    ns=$(namespace "$machine") dir=$state/hosts/$machine
    mkdir -p "$dir/work"
    ip netns add "$ns"
    ip link add "$(veth "$i")" type veth peer name eth0 netns "$ns"
    ip link set "$(veth "$i")" master "$bridge" up
    ip -n "$ns" addr add "$address/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    if [ -n "${rate_of[$machine]:-}" ]; then
        shape -n "$ns" eth0 "${rate_of[$machine]}" "${bucket_bytes[$machine]}"    # from the host
        shape "$(veth "$i")" "${rate_of[$machine]}" "${bucket_bytes[$machine]}" # to the host
    fi

    # Debian's stock sshd_config with only these settings changed, each in place of the stock
    # file's commented default (sshd takes the first value it reads; one the file lacks goes
    # first): the same choices as the launcher's tests (docs/launcher.md, "Tests").
    ssh-keygen -q -t ed25519 -N '' -C "host-$machine" -f "$dir/host_key"
    settings=("Port 22" "ListenAddress $address" "HostKey $dir/host_key"
        "AuthorizedKeysFile $state/id_ed25519.pub" "PidFile $dir/sshd.pid")
    [ $strict = yes ] || settings+=("StrictModes no")
    cp /usr/share/openssh/sshd_config "$dir/sshd_config"
    for setting in "${settings[@]}"; do
        keyword=${setting%% *}
        if grep -q "^#${keyword}[[:blank:]]" "$dir/sshd_config"; then
            sed -i "0,/^#${keyword}[[:blank:]].*/s||$setting|" "$dir/sshd_config"
        else
            sed -i "1i $setting" "$dir/sshd_config"
        fi
    done
    # In the mount namespace `ip netns exec` gives sshd, the host's speed is mounted where its
    # programs read it and its CPU model names the speed, so that import makes one CPU type per
    # speed, as of different CPUs. sshd starts in the host's cgroup where there is one, so
    # whatever it starts (agent, probe, ranks) has the host's weight.
    sshd=("$(command -v sshd)" -f "$dir/sshd_config" -E "$dir/sshd.log")
    if [ -n "${cpu_of[$machine]:-}" ]; then
        set_speed "$machine" "${cpu_of[$machine]}"
        sed "s/^\(model name[[:blank:]]*:.*\)$/\1 (emulated, ${cpu_of[$machine]} cores)/" \
            /proc/cpuinfo >"$dir/cpuinfo"
        mkdir -p "$(dirname "$state")/this-host"
        launch=(ip netns exec "$ns" bash -c \
            'mount --bind "$0" /proc/cpuinfo && mount --bind "$1" "$2" && exec "${@:3}"' \
            "$dir/cpuinfo" "$dir/run" "$(dirname "$state")/this-host" "${sshd[@]}")
        if [ -d "$(cgroup_of "$machine")" ]; then
            bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$(cgroup_of "$machine")" "${launch[@]}"
        else
            "${launch[@]}"
        fi
    else
        ip netns exec "$ns" "${sshd[@]}"
    fi
    echo "$address $(cut -d' ' -f1,2 "$dir/host_key.pub")" >>"$state/known_hosts"

    hosts_json+="${hosts_json:+,
}    {\"machine\": \"$machine\", \"host\": \"$address\", \"user\": \"root\",
     \"identity\": \"$state/id_ed25519\", \"workdir\": \"$dir/work\"${worker:+,
     \"worker\": \"$worker\"}}"
done

for ((i = 0; i < hosts; ++i)); do # sshd forks into the background; wait until it listens
    for ((try = 0; ; ++try)); do
        ip netns exec "$(namespace "${letters[i]}")" bash -c \
            "exec 3<>/dev/tcp/$subnet.$((i + 2))/22" 2>/dev/null && break
        ((try < 100)) || die "sshd of host ${letters[i]} does not listen: $(cat "$state/hosts/${letters[i]}/sshd.log")"
        sleep 0.1
    done
done

printf '{\n  "format": "hetplan.hosts/1",\n  "hosts": [\n%s\n  ]\n}\n' "$hosts_json" >"$state/hosts.json"
cat >"$state/cluster.env" <<EOF
hosts=$hosts
subnet=$subnet
EOF
{
    for ((i = 0; i < hosts; ++i)); do
        printf 'Host %s\n  HostName %s\n  User root\n  IdentityFile %s\n  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n' \
            "${letters[i]}" "$subnet.$((i + 2))" "$state/id_ed25519" "$state/known_hosts"
    done
} >"$state/ssh_config"

"$0" status --name "$name"
echo "hosts file: $state/hosts.json  (ssh -F $state/ssh_config A; known hosts: $state/known_hosts)"
echo "state: $state"
