#!/usr/bin/env bash
# Set up (dev extras) and run every check: lint, format, types, tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/ruff check src tests benchmarks
.venv/bin/ruff format --check src tests benchmarks
.venv/bin/mypy
.venv/bin/python -m pytest -q "$@"
