#!/usr/bin/env bash
# make k8s-check: the sharded Job of scripts/k8s/ run end to end on a real
# one-node Kubernetes (scripts/k8s/local-cluster.sh) against the bundled
# server on the host, checked against the server's own count; then the
# cluster is taken down and the machine checked to be as it was (processes,
# mounts, network interfaces). Every step prints its time. Root only; not
# part of make test (it builds Kubernetes). See docs/sharding.md.
#
# K8S_SHARDS (4), K8S_LEAD (start-at lead, seconds: 45) and K8S_DURATION
# (each shard's -d: 20s) size the run; K8S_WAIT (240) is how long past the
# start the Job may take.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cluster=scripts/k8s/local-cluster.sh
n=${K8S_SHARDS:-4}
lead=${K8S_LEAD:-45}
duration=${K8S_DURATION:-20s}
work=.run/k8s/check
rm -rf "$work"
mkdir -p "$work"

t0=$(date +%s.%N)
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {print b - a}'; }
# step NAME CMD...: run CMD, print how long it took.
step() {
  local name=$1 s
  shift
  s=$(date +%s.%N)
  printf '\n== %s\n' "$name"
  "$@"
  printf '== %s: %.1f s\n' "$name" "$(since "$s")"
}

# What a cluster leaves behind if down misses it: processes of its
# programs (by their names as ps shows them, cut to 15 characters), mounts,
# network interfaces, iptables rules of the kubelet's.
progs='etcd|kube-apiserver|kube-controller|kube-scheduler|kubelet|kubectl|containerd|containerd-shim|runc|pause'
machine_state() {
  ps -eo comm= | grep -Ex "$progs" | sort | uniq -c | sed 's/^ */process /' || true
  findmnt -rn -o TARGET,FSTYPE | sed 's/^/mount /' | sort
  ip -o link show | awk -F': ' '{print "link " $2}' | sort
  { iptables-save 2>/dev/null; ip6tables-save 2>/dev/null; } | grep -E '^[:-]' | grep KUBE | sed 's/^/iptables /' | sort || true
}

server_pid=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ $rc != 0 ]; then
    printf '\n== failed (exit %d): cluster logs kept in .run/k8s/failed-logs\n' "$rc"
    rm -rf .run/k8s/failed-logs
    cp -r .run/k8s/cluster/logs .run/k8s/failed-logs 2>/dev/null || true
    "$cluster" down || true
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

machine_state > "$work/before.txt"

step "make image" make image
step "make build" make build
step "Kubernetes binaries" "$cluster" build
eval "$("$cluster" env)"
kubectl version --client -o json | jq -r '"Kubernetes " + .clientVersion.gitVersion + " (" + .clientVersion.goVersion + ")"'
step "cluster up" "$cluster" up
kubectl get nodes -o wide
kubectl version -o json | jq -r '"server " + .serverVersion.gitVersion'

start_server() {
  # The bundled server on the host's loopback; its first stdout line names
  # its URL.
  ./mcpbench serve --addr 127.0.0.1:0 --service-time 5ms > "$work/server.out" 2> "$work/server.err" &
  server_pid=$!
  local i
  for ((i = 0; i < 50; i++)); do
    url=$(grep -o 'http://[^ ]*' "$work/server.out" 2>/dev/null | head -1 || true)
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { cat "$work/server.err" >&2; return 1; }
  echo "server $url (pid $server_pid)"
}
url=
step "bundled server" start_server

# The local overlay of the manifest: the pods use the host's network so
# that their load goes to the server on 127.0.0.1 (this cluster has no pod
# network, and load here stays on loopback); each asks for a quarter CPU,
# since the one node has 2 (the manifest's 1 CPU a pod fits 4 nodes); and
# the shards run for $duration instead of 60 s.
sed -e 's|^\(      \)restartPolicy: Never|&\n\1hostNetwork: true|' \
    -e 's|^\(  *\)cpu: "1"|\1cpu: 250m|' \
    -e '/^ *- -d$/{n;s|60s|'"$duration"'|}' \
    scripts/k8s/mcpbench-shards.yaml > "$work/mcpbench-shards.local.yaml"
echo "overlay: $(diff scripts/k8s/mcpbench-shards.yaml "$work/mcpbench-shards.local.yaml" | grep -c '^>') lines changed:"
diff scripts/k8s/mcpbench-shards.yaml "$work/mcpbench-shards.local.yaml" || true

run_sharded() {
  PATH=$root:$PATH WAIT=${K8S_WAIT:-240} MANIFEST=$work/mcpbench-shards.local.yaml OUT=$work/reports \
    scripts/k8s/run-sharded.sh "$url/mcp" "$n" "$lead"
}
step "run-sharded.sh $url/mcp $n $lead" run_sharded

check_pods() {
  echo "pods (name, completion index, phase, node, pod IP):"
  kubectl get pods -l job-name=mcpbench-shards \
    -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.annotations.batch\.kubernetes\.io/job-completion-index} {.status.phase} {.spec.nodeName} {.status.podIP}{"\n"}{end}' |
    sort -k2 -n | tee "$work/pods.txt"
  local want got
  want=$(seq 0 $((n - 1)) | tr '\n' ' ')
  got=$(awk '{print $2}' "$work/pods.txt" | sort -n | tr '\n' ' ')
  [ "$got" = "$want" ] || { echo "FAIL: indexes '$got', want '$want' (each once)"; return 1; }
  awk '$3 != "Succeeded" {bad=1} END {exit bad}' "$work/pods.txt" || { echo "FAIL: a pod did not succeed"; return 1; }
  # The user each shard's process ran as: what the kubelet had containerd
  # run (the OCI spec's process.user), per pod.
  echo "containers (pod, image, uid:gid the runtime ran the process as):"
  local sock c
  sock=$root/.run/k8s/cluster/containerd/containerd.sock
  for c in $(ctr --address "$sock" -n k8s.io containers ls -q); do
    ctr --address "$sock" -n k8s.io containers info "$c" |
      jq -r 'select(.Labels["io.kubernetes.container.name"] == "mcpbench") |
        "\(.Labels["io.kubernetes.pod.name"]) \(.Image) \(.Spec.process.user.uid):\(.Spec.process.user.gid)"'
  done | sort | tee "$work/users.txt"
  [ "$(wc -l < "$work/users.txt")" = "$n" ] || { echo "FAIL: $(wc -l < "$work/users.txt") mcpbench containers, want $n"; return 1; }
  awk '$3 != "65532:65532" {bad=1} END {exit bad}' "$work/users.txt" || { echo "FAIL: a shard did not run as 65532"; return 1; }
}
step "pods" check_pods

check_counts() {
  curl -fsS "$url/health" > "$work/health.json"
  go run ./scripts/k8s/verify -n "$n" -health "$work/health.json" -merged "$work/reports/merged.json" "$work"/reports/shard-*.json
}
step "merged report against the server's count" check_counts

disk() {
  local kv
  kv=$(basename "$(dirname "$(dirname "$(command -v kubectl)")")")
  du -sh ".run/k8s/$kv/bin" .run/k8s/pause-image.tar .run/image/mcpbench-docker.tar \
    .run/k8s/cluster/containerd/root .run/k8s/cluster | sed 's/^/disk /'
}
step "disk used" disk

kill "$server_pid" && wait "$server_pid" 2>/dev/null || true
server_pid=
step "cluster down" "$cluster" down

machine_state > "$work/after.txt"
printf '\n== the machine before and after (processes of the cluster'"'"'s programs, mounts, links)\n'
echo "before: $(grep -c '^process' "$work/before.txt" || true) process lines, $(grep -c '^mount' "$work/before.txt") mounts, $(grep -c '^link' "$work/before.txt") links: $(grep '^link' "$work/before.txt" | cut -d' ' -f2 | tr '\n' ' ')"
echo "after:  $(grep -c '^process' "$work/after.txt" || true) process lines, $(grep -c '^mount' "$work/after.txt") mounts, $(grep -c '^link' "$work/after.txt") links: $(grep '^link' "$work/after.txt" | cut -d' ' -f2 | tr '\n' ' ')"
if ! diff "$work/before.txt" "$work/after.txt"; then
  echo "FAIL: the machine is not as it was"
  exit 1
fi
printf '\nk8s-check passed in %.1f s\n' "$(since "$t0")"
