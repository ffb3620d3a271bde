#!/usr/bin/env bash
# Run mcpbench as N shards in Kubernetes, collect the reports and merge them.
#
#   scripts/k8s/run-sharded.sh http://my-mcp.my-ns.svc:3002/mcp [N] [LEAD_SECONDS]
#
# Needs kubectl (pointed at the cluster and namespace) and mcpbench on PATH
# for the merge. Writes shard-<i>.json and merged.json under $OUT
# (default ./mcpbench-shards). MANIFEST picks another manifest than the
# mcpbench-shards.yaml beside this script (an overlay of it: make k8s-check
# runs one with hostNetwork: true). WAIT (default 600) is how many seconds
# past the start time the Job may take before the script gives up.
set -euo pipefail

url=${1:?usage: run-sharded.sh TARGET_URL [N] [LEAD_SECONDS]}
n=${2:-4}
lead=${3:-120}
out=${OUT:-mcpbench-shards}
job=mcpbench-shards
manifest=${MANIFEST:-"$(dirname "$0")/mcpbench-shards.yaml"}

# One start time for every pod, far enough ahead for scheduling and image
# pulls; a pod that starts late begins at once and says so in its report's
# started_at.
start_at=$(( $(date +%s) + lead ))

mkdir -p "$out"
kubectl delete job "$job" --ignore-not-found --wait=true
sed -e "s|__START_AT__|$start_at|" \
    -e "s|__TARGET_URL__|$url|" \
    -e "s|^\(  *\)completions: [0-9]*|\1completions: $n|" \
    -e "s|^\(  *\)parallelism: [0-9]*|\1parallelism: $n|" \
    -e "s|\$(JOB_COMPLETION_INDEX)/[0-9]*|\$(JOB_COMPLETION_INDEX)/$n|" \
    "$manifest" | kubectl apply -f -

# Wait for the run: the lead time, the load, and room for the slowest pod.
# A failed Job (backoffLimit 0: one failed pod) ends the wait at once
# rather than when the time is out.
wait_s=${WAIT:-600}
deadline=$(( $(date +%s) + lead + wait_s ))
while :; do
  state=$(kubectl get "job/$job" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type} {end}')
  case " $state " in
  *" Complete "*) break ;;
  *" Failed "*)
    echo "job/$job failed:" >&2
    kubectl get pods -l "job-name=$job" -o wide >&2 || true
    for pod in $(kubectl get pods -l "job-name=$job" -o name); do
      echo "--- $pod" >&2
      kubectl logs "$pod" -c mcpbench --tail=20 >&2 || true
    done
    exit 1
    ;;
  esac
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "job/$job did not finish in $(( lead + wait_s ))s" >&2
    kubectl get pods -l "job-name=$job" -o wide >&2 || true
    exit 1
  fi
  sleep 2
done

# Each pod printed its report on stdout; keep only the JSON object, in
# case anything else reached the log.
files=()
while read -r pod idx; do
  f="$out/shard-$idx.json"
  kubectl logs "$pod" -c mcpbench | sed -n '/^{/,/^}/p' > "$f"
  files+=("$f")
done < <(kubectl get pods -l "job-name=$job" \
  -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.annotations.batch\.kubernetes\.io/job-completion-index}{"\n"}{end}')

mcpbench merge "${files[@]}" --json-out "$out/merged.json" --md-out "$out/merged.md"
echo "merged ${#files[@]} shards into $out/merged.json"
