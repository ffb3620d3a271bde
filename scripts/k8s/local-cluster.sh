#!/usr/bin/env bash
# A real one-node Kubernetes on this machine's loopback, for make k8s-check:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler and a kubelet
# on containerd with runc. Everything listens on 127.0.0.1; pods that must
# reach something use the host network (the cluster has no pod network and
# no kube-proxy or DNS: the node is Ready on a loopback-only CNI config).
#
#   scripts/k8s/local-cluster.sh build   # the Kubernetes binaries, cached
#   scripts/k8s/local-cluster.sh up      # build, start, wait for the node
#   scripts/k8s/local-cluster.sh down    # stop all, remove what up made
#   scripts/k8s/local-cluster.sh env     # KUBECONFIG=... PATH=... to eval
#
# Needs root (containers, mounts, cgroups) and Debian's etcd-server,
# containerd, runc and containernetworking-plugins (installed when missing).
# Binaries: .run/k8s/$KUBE_VERSION/bin, built from scripts/k8s/kube (its own
# Go module) at nice 19 with GOFLAGS=-p=1 unless GOFLAGS is set. The
# cluster's state, logs and certificates: .run/k8s/cluster, removed by down.
set -euo pipefail

KUBE_VERSION=v1.34.4
# The pause image the sandboxes run: built here from the pause.c that
# k8s.io/kubernetes ships (build/pause), as registry.k8s.io builds it.
PAUSE_IMAGE=registry.k8s.io/pause:3.10.1

root=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$root/.run/k8s
bin=$kdir/$KUBE_VERSION/bin
S=$kdir/cluster
sock=$S/containerd/containerd.sock
kubeconfig=$S/pki/admin.kubeconfig
apiserver_port=${K8S_APISERVER_PORT:-16443}
etcd_port=${K8S_ETCD_PORT:-23790}
# The node's name is its address: the kubelet then reports 127.0.0.1 as
# the node's InternalIP (a name that parses as an IP is taken as the
# address, where --node-ip refuses loopback), so the API server reaches the
# kubelet (logs, exec) on loopback and host-network pods get 127.0.0.1.
node=127.0.0.1
# Paths outside $S that containerd, runc or the kubelet create whatever
# they are told; down removes those that were not there before up.
system_paths=(/run/containerd /run/runc /var/log/pods /var/log/containers /var/lib/kubelet /var/lib/cni /run/netns /etc/cni /opt/cni)
components=(kubelet kube-scheduler kube-controller-manager kube-apiserver containerd etcd)

log() { printf '%s local-cluster: %s\n' "$(date -u +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

need_root() { [ "$(id -u)" = 0 ] || die "must run as root (containers, mounts, cgroups)"; }

install_packages() {
  local missing=()
  for p in etcd-server containerd runc containernetworking-plugins openssl curl jq gcc libc6-dev iproute2; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} = 0 ] && return
  log "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
  local want=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl)
  local have=1
  for b in "${want[@]}"; do [ -x "$bin/$b" ] || have=0; done
  if [ $have = 1 ]; then
    log "Kubernetes $KUBE_VERSION binaries cached in ${bin#"$root"/}"
    return
  fi
  log "building Kubernetes $KUBE_VERSION (${want[*]}) into ${bin#"$root"/}"
  local ld="-s -w" p pkgs=()
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=$(echo "$KUBE_VERSION" | cut -d. -f1 | tr -d v)"
    ld="$ld -X $p.gitMinor=$(echo "$KUBE_VERSION" | cut -d. -f2) -X $p.gitTreeState=clean"
  done
  for b in "${want[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$b"); done
  mkdir -p "$bin.tmp"
  (cd "$root/scripts/k8s/kube" &&
    CGO_ENABLED=0 GOFLAGS=${GOFLAGS:--p=1} nice -n 19 go build -trimpath -ldflags "$ld" -o "$bin.tmp/" "${pkgs[@]}")
  rm -rf "$bin" && mv "$bin.tmp" "$bin"
}

# pause_image writes the sandbox image as a docker-load tarball: one layer
# holding the static pause binary.
pause_image() {
  local out=$kdir/pause-image.tar
  [ -s "$out" ] && { echo "$out"; return; }
  local src w
  src=$(cd "$root/scripts/k8s/kube" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)/build/pause/linux/pause.c
  w=$(mktemp -d)
  mkdir -p "$w/rootfs"
  gcc -Os -static -DVERSION="${PAUSE_IMAGE##*:}" -o "$w/rootfs/pause" "$src"
  strip "$w/rootfs/pause"
  tar -C "$w/rootfs" --owner=0 --group=0 --numeric-owner --mtime=@0 -cf "$w/layer.tar" pause
  local diff cfg cfgsum
  diff=$(sha256sum "$w/layer.tar" | cut -d' ' -f1)
  cfg=$(printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":["/pause"],"User":"65535:65535"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' "$diff")
  cfgsum=$(printf '%s' "$cfg" | sha256sum | cut -d' ' -f1)
  printf '%s' "$cfg" > "$w/$cfgsum.json"
  printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["layer.tar"]}]' "$cfgsum" "$PAUSE_IMAGE" > "$w/manifest.json"
  tar -C "$w" -cf "$out.tmp" manifest.json "$cfgsum.json" layer.tar
  mv "$out.tmp" "$out"
  rm -rf "$w"
  echo "$out"
}

# cert NAME CN [O] [SAN]: a key and a certificate signed by the cluster CA.
cert() {
  local name=$1 cn=$2 o=${3:-} san=${4:-} subj ext
  subj="/CN=$cn"
  [ -n "$o" ] && subj="/O=$o$subj"
  openssl req -new -newkey rsa:2048 -nodes -keyout "$S/pki/$name.key" -subj "$subj" -out "$S/pki/$name.csr" 2>/dev/null
  ext=$S/pki/$name.ext
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    if [ -n "$san" ]; then echo "extendedKeyUsage=serverAuth"; echo "subjectAltName=$san"; else echo "extendedKeyUsage=clientAuth"; fi
  } > "$ext"
  openssl x509 -req -in "$S/pki/$name.csr" -CA "$S/pki/ca.crt" -CAkey "$S/pki/ca.key" -CAcreateserial \
    -days 2 -sha256 -extfile "$ext" -out "$S/pki/$name.crt" 2>/dev/null
}

kubeconfig_for() {
  local name=$1
  cat > "$S/pki/$name.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:$apiserver_port
    certificate-authority: $S/pki/ca.crt
users:
- name: $name
  user:
    client-certificate: $S/pki/$name.crt
    client-key: $S/pki/$name.key
contexts:
- name: local
  context: {cluster: local, user: $name, namespace: default}
current-context: local
EOF
}

pki() {
  mkdir -p "$S/pki"
  openssl req -x509 -new -newkey rsa:2048 -nodes -days 2 -keyout "$S/pki/ca.key" -out "$S/pki/ca.crt" \
    -subj "/CN=mcpbench-local-ca" 2>/dev/null
  cert apiserver kube-apiserver "" "IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
  cert admin admin system:masters
  cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
  cert controller-manager system:kube-controller-manager
  cert scheduler system:kube-scheduler
  cert kubelet "system:node:$node" system:nodes
  cert kubelet-serving "$node" "" "IP:127.0.0.1,DNS:localhost"
  openssl genrsa -out "$S/pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$S/pki/sa.key" -pubout -out "$S/pki/sa.pub" 2>/dev/null
  for c in admin controller-manager scheduler kubelet; do kubeconfig_for "$c"; done
}

# start NAME CMD...: in its own session, output to logs/NAME.log.
start() {
  local name=$1
  shift
  setsid "$@" > "$S/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$S/pids/$name.pid"
}

# wait_for WHAT SECONDS CMD...: until CMD succeeds, or fail showing the log.
wait_for() {
  local what=$1 secs=$2 i
  shift 2
  for ((i = 0; i < secs * 5; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  log "$what not ready after ${secs}s"
  return 1
}

snapshot_system_paths() {
  local p
  : > "$S/preexisting"
  for p in "${system_paths[@]}"; do [ -e "$p" ] && echo "$p" >> "$S/preexisting"; done
  find /sys/fs/cgroup -mindepth 1 -maxdepth 6 -type d 2>/dev/null | sort > "$S/cgroups.before" || true
  iptables_chains > "$S/iptables.before"
}

write_configs() {
  mkdir -p "$S/containerd" "$S/cni/net.d" "$S/kubelet" "$S/pod-logs"
  cat > "$S/containerd/config.toml" <<EOF
version = 2
root = "$S/containerd/root"
state = "$S/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$sock"
[ttrpc]
  address = "$S/containerd/containerd.sock.ttrpc"
[debug]
  address = "$S/containerd/debug.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  enable_selinux = false
  # This machine gives root no CAP_SYS_RESOURCE, so no process may lower
  # its oom_score_adj: the kubelet's -998 for a sandbox failed in crun
  # ("write to /proc/self/oom_score_adj: Permission denied"). containerd
  # then keeps each score at or above its own.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    # runc, not crun: this machine mounts cgroup v1 hierarchies beside a
    # cgroup2 one that still holds a controller (hugetlb), and Debian's crun
    # 1.8.1 refuses that ("cgroups in hybrid mode not supported, drop all
    # controllers from cgroupv2"); runc uses the v1 hierarchies.
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "/usr/bin/runc"
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$S/cni/net.d"
EOF
  # Only the loopback plugin: enough for the runtime to call the network
  # ready; the pods here use the host's network and never call CNI.
  cat > "$S/cni/net.d/10-loopback.conflist" <<EOF
{"cniVersion": "1.0.0", "name": "lo-only", "plugins": [{"type": "loopback"}]}
EOF
  cat > "$S/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: $S/pki/kubelet-serving.crt
tlsPrivateKeyFile: $S/pki/kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $S/pki/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://$sock
# This machine has cgroup v1 and no systemd: plain cgroupfs, no QoS
# hierarchy, nothing reserved, swap allowed.
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: []
failSwapOn: false
failCgroupV1: false
podLogsDir: $S/pod-logs
resolvConf: /etc/resolv.conf
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
maxPods: 20
EOF
}

up() {
  need_root
  install_packages
  build
  [ -e "$S/pids" ] && die "a cluster is up (or was not taken down): run $0 down first"
  local pause
  pause=$(pause_image)
  mkdir -p "$S/logs" "$S/pids"
  snapshot_system_paths
  pki
  write_configs

  log "etcd"
  start etcd etcd --name local --data-dir "$S/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$((etcd_port + 10))" --initial-advertise-peer-urls "http://127.0.0.1:$((etcd_port + 10))" \
    --initial-cluster "local=http://127.0.0.1:$((etcd_port + 10))"
  wait_for etcd 30 curl -fsS "http://127.0.0.1:$etcd_port/health"

  log "kube-apiserver"
  start kube-apiserver "$bin/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$etcd_port" \
    --bind-address 127.0.0.1 --secure-port "$apiserver_port" --advertise-address 127.0.0.1 \
    --endpoint-reconciler-type none \
    --tls-cert-file "$S/pki/apiserver.crt" --tls-private-key-file "$S/pki/apiserver.key" \
    --client-ca-file "$S/pki/ca.crt" \
    --kubelet-client-certificate "$S/pki/apiserver-kubelet-client.crt" --kubelet-client-key "$S/pki/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority "$S/pki/ca.crt" --kubelet-preferred-address-types InternalIP \
    --service-account-issuer https://kubernetes.default.svc --service-account-key-file "$S/pki/sa.pub" \
    --service-account-signing-key-file "$S/pki/sa.key" \
    --service-cluster-ip-range 10.96.0.0/24 --authorization-mode Node,RBAC --profiling=false
  wait_for kube-apiserver 120 "$bin/kubectl" --kubeconfig "$kubeconfig" get --raw /readyz

  log "kube-controller-manager, kube-scheduler"
  start kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig "$S/pki/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$S/pki/controller-manager.kubeconfig" --authorization-kubeconfig "$S/pki/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials \
    --service-account-private-key-file "$S/pki/sa.key" --root-ca-file "$S/pki/ca.crt" --profiling=false
  start kube-scheduler "$bin/kube-scheduler" \
    --kubeconfig "$S/pki/scheduler.kubeconfig" \
    --authentication-kubeconfig "$S/pki/scheduler.kubeconfig" --authorization-kubeconfig "$S/pki/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --profiling=false

  log "containerd (runc)"
  start containerd containerd --config "$S/containerd/config.toml"
  wait_for containerd 30 ctr --address "$sock" version
  log "importing $PAUSE_IMAGE and mcpbench:latest into containerd's k8s.io namespace"
  ctr --address "$sock" -n k8s.io images import "$pause" >/dev/null
  [ -f "$root/.run/image/mcpbench-docker.tar" ] || die "no .run/image/mcpbench-docker.tar: run make image first"
  ctr --address "$sock" -n k8s.io images import "$root/.run/image/mcpbench-docker.tar" >/dev/null

  log "kubelet (node $node)"
  start kubelet "$bin/kubelet" --config "$S/kubelet/config.yaml" --kubeconfig "$S/pki/kubelet.kubeconfig" \
    --root-dir "$S/kubelet/root" --cert-dir "$S/kubelet/pki" --hostname-override "$node" --v 1
  if ! "$bin/kubectl" --kubeconfig "$kubeconfig" wait --for=condition=Ready "node/$node" --timeout=10s >/dev/null 2>&1; then
    wait_for "node registration" 60 "$bin/kubectl" --kubeconfig "$kubeconfig" get "node/$node" || { tail -20 "$S/logs/kubelet.log" >&2; return 1; }
    "$bin/kubectl" --kubeconfig "$kubeconfig" wait --for=condition=Ready "node/$node" --timeout=120s >/dev/null ||
      { tail -20 "$S/logs/kubelet.log" >&2; return 1; }
  fi
  wait_for "default service account" 60 "$bin/kubectl" --kubeconfig "$kubeconfig" get serviceaccount default
  log "up: Kubernetes $KUBE_VERSION, node $node Ready; KUBECONFIG=$kubeconfig"
}

# stop NAME: SIGTERM, up to 15 s, then SIGKILL.
stop() {
  local f=$S/pids/$1.pid pid i
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 75; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$pid" 2>/dev/null && { log "$1 ($pid) did not stop: killing it"; kill -9 "$pid" 2>/dev/null || true; }
  fi
  rm -f "$f"
}

down() {
  need_root
  [ -d "$S" ] || { log "nothing to take down"; return 0; }
  # The Job and its pods first, while the kubelet can still stop them.
  if [ -f "$S/pids/kube-apiserver.pid" ] && [ -x "$bin/kubectl" ]; then
    "$bin/kubectl" --kubeconfig "$kubeconfig" delete jobs,pods --all --now --wait=true --timeout=60s >/dev/null 2>&1 || true
  fi
  stop kubelet
  # Whatever containers remain: their tasks (and shims) end, then the
  # containers and their snapshots go.
  if [ -f "$S/pids/containerd.pid" ] && [ -S "$sock" ]; then
    local c
    for c in $(ctr --address "$sock" -n k8s.io tasks ls -q 2>/dev/null); do
      ctr --address "$sock" -n k8s.io tasks kill -s SIGKILL "$c" >/dev/null 2>&1 || true
    done
    sleep 1
    for c in $(ctr --address "$sock" -n k8s.io tasks ls -q 2>/dev/null); do
      ctr --address "$sock" -n k8s.io tasks delete -f "$c" >/dev/null 2>&1 || true
    done
    for c in $(ctr --address "$sock" -n k8s.io containers ls -q 2>/dev/null); do
      ctr --address "$sock" -n k8s.io containers delete "$c" >/dev/null 2>&1 || true
    done
  fi
  local n
  for n in kube-scheduler kube-controller-manager kube-apiserver containerd etcd; do stop "$n"; done
  # Shims left behind by a containerd killed mid-way.
  pkill_shims
  # Mounts under the cluster's folders and under /run/containerd, deepest first.
  findmnt -rn -o TARGET | { grep -E "^($S|/run/containerd)/" || true; } | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "could not unmount $m"
  done
  # Cgroups the containers left, deepest first.
  if [ -f "$S/cgroups.before" ]; then
    find /sys/fs/cgroup -mindepth 1 -maxdepth 6 -type d 2>/dev/null | sort | comm -13 "$S/cgroups.before" - | sort -r |
      while read -r d; do rmdir "$d" 2>/dev/null || true; done
  fi
  remove_kube_chains || log "could not remove every KUBE-* iptables chain"
  local p
  for p in "${system_paths[@]}"; do
    [ -e "$p" ] || continue
    grep -qxF "$p" "$S/preexisting" 2>/dev/null || rm -rf "$p"
  done
  rm -rf "$S"
  log "down: processes stopped, mounts and files removed"
}

# iptables_chains lists TOOL TABLE CHAIN for every KUBE-* chain there is.
iptables_chains() {
  local tool t
  for tool in iptables ip6tables; do
    command -v "$tool" >/dev/null || continue
    for t in filter nat mangle raw; do
      "$tool-save" -t "$t" 2>/dev/null | sed -n "s|^:\(KUBE-[^ ]*\) .*|$tool $t \1|p"
    done
  done
}

# remove_kube_chains removes the KUBE-* chains that were not there before
# up, and the rules that jump to them: where iptables is installed the
# kubelet adds some (KUBE-FIREWALL, which drops packets to 127.0.0.0/8
# from other addresses, and its canaries).
remove_kube_chains() {
  local tool t ch rule
  iptables_chains | sort | comm -13 <(sort "$S/iptables.before" 2>/dev/null) - | while read -r tool t ch; do
    # (grep finds no jump to a canary chain: not a failure.)
    "$tool-save" -t "$t" | { grep -E "^-A [^ ]+ .*-j $ch( |$)" || true; } | sed 's/^-A /-D /' | while read -r rule; do
      eval "$tool -t $t $rule" 2>/dev/null || true
    done
    "$tool" -t "$t" -F "$ch" 2>/dev/null || true
  done
  iptables_chains | sort | comm -13 <(sort "$S/iptables.before" 2>/dev/null) - | while read -r tool t ch; do
    "$tool" -t "$t" -X "$ch" 2>/dev/null || log "could not remove $tool -t $t chain $ch"
  done
}

# pkill_shims ends containerd-shim-runc-v2 processes started for this
# cluster's containerd (its socket path is on their command line), by pid.
pkill_shims() {
  local pid
  for pid in $(pgrep -f containerd-shim-runc-v2 || true); do
    if tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "$sock"; then
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
}

case ${1:-} in
build) build ;;
up)
  # A failed up takes down what it started.
  trap 'rc=$?; if [ $rc != 0 ]; then log "up failed: taking down what started (logs were in $S/logs)"; cp -r "$S/logs" "$kdir/failed-logs" 2>/dev/null || true; down; fi' EXIT
  up
  trap - EXIT
  ;;
down) down ;;
env) echo "export KUBECONFIG=$kubeconfig PATH=$bin:\$PATH" ;;
*)
  echo "usage: $0 build|up|down|env" >&2
  exit 2
  ;;
esac
