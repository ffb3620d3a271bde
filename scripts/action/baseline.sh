#!/usr/bin/env bash
# Fetches the baseline from the artifact INPUT_BASELINE_ARTIFACT of the last
# successful run of this workflow on INPUT_BASELINE_BRANCH (the base branch
# of a pull request), with the gh CLI, and sets the output path to its
# report.json. No such run or artifact is not a failure: the gate then has
# nothing to compare with, and says so.
set -euo pipefail
# shellcheck source=scripts/action/common.sh
. "$(dirname "$0")/common.sh"
artifact=${INPUT_BASELINE_ARTIFACT:?}
branch=${INPUT_BASELINE_BRANCH:-}
if [ -z "$branch" ]; then
  echo "::notice::mcpbench: no baseline-branch (not a pull request?): no baseline artifact to fetch"
  output path ""
  exit 0
fi
# GITHUB_WORKFLOW_REF is owner/repo/.github/workflows/FILE@ref.
workflow=${GITHUB_WORKFLOW_REF:?}
workflow=${workflow%@*}
workflow=${workflow##*/}
id=$(gh run list --repo "${GITHUB_REPOSITORY:?}" --workflow "$workflow" --branch "$branch" \
  --status success --limit 1 --json databaseId --jq '.[0].databaseId // empty')
if [ -z "$id" ]; then
  echo "::notice::mcpbench: no successful run of $workflow on $branch yet: no baseline"
  output path ""
  exit 0
fi
dir="${RUNNER_TEMP:?}/mcpbench-baseline"
rm -rf "$dir"
if ! gh run download "$id" --repo "$GITHUB_REPOSITORY" --name "$artifact" --dir "$dir"; then
  echo "::notice::mcpbench: run $id on $branch has no artifact $artifact: no baseline"
  output path ""
  exit 0
fi
if [ ! -f "$dir/report.json" ]; then
  echo "::warning::mcpbench: artifact $artifact of run $id has no report.json"
  output path ""
  exit 0
fi
echo "mcpbench: baseline from run $id on $branch ($artifact/report.json)"
output path "$dir/report.json"
output run_id "$id"
