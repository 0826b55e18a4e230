#!/usr/bin/env bash
# The visibility route on both dev halves: the four context-only runs the issue 12 tables
# report (IMLogic-style, with 10 distractor items, InMind-style, with 20 distractors), for
# half A and half B, two runs at a time (~3 min a half on two cores at 7dd5a03; ~15 before
# 3dc8e63 built the criticality classifier once per process). Writes
# OUT/{imlogic,imlogic-d10,inmind,inmind-d20}-{A,B}; summarise with
#   .venv/bin/python benchmarks/halves.py OUT/{inmind,inmind-d20,imlogic,imlogic-d10}
# Usage: bash benchmarks/dev_halves.sh OUT [CONFIG.toml] [A|B|AB]
# CONFIG (optional) sets dials, e.g. a [visibility] section; without it, the defaults.
# LIMIT=N (environment) keeps the first N items of each half: a quick check of the script.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: bash benchmarks/dev_halves.sh OUT [CONFIG.toml] [A|B|AB]}
CONFIG=${2:-}
HALVES=${3:-AB}
BENCH=../shared/bench
BACKGROUND=../shared/data/locomo10
[ -d "$BACKGROUND" ] || { echo "needs ../shared (the dev sets) beside the checkout" >&2; exit 2; }
export LOGICMEM_LLM=none HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
mkdir -p "$OUT"
# pair NAME FLAG FILE N: a run of the set without distractors, then one with N of them.
pair() {
  local name=$1 flag=$2 file=$3 n=$4
  .venv/bin/logicmem bench "$name" "$flag" "$BENCH/$file" "${common[@]}" --out "$OUT/$name-$half"
  .venv/bin/logicmem bench "$name" "$flag" "$BENCH/$file" "${common[@]}" --distractors "$n" \
    --out "$OUT/$name-d$n-$half"
}
for half in $(echo "$HALVES" | grep -o .); do
  common=(--background "$BACKGROUND" --methods context --k 10,30 --half "$half"
          --no-plots --quiet)
  if [ -n "$CONFIG" ]; then common+=(--config "$CONFIG"); fi
  if [ -n "${LIMIT:-}" ]; then common+=(--limit "$LIMIT"); fi
  pids=()
  pair imlogic --items imlogic_style_dev.jsonl 10 > "$OUT/imlogic-$half.log" 2>&1 &
  pids+=($!)
  pair inmind --tasks inmind_style_dev.jsonl 20 > "$OUT/inmind-$half.log" 2>&1 &
  pids+=($!)
  for pid in "${pids[@]}"; do
    wait "$pid" || { echo "a run of half $half failed: see $OUT/*-$half.log" >&2; exit 1; }
  done
done
echo "wrote $OUT"
