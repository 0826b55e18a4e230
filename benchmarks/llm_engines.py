"""Compare the two engines for the embedded SmolLM2-135M GGUF: transformers (``local``) and
llama.cpp in-process (xllamacpp, ``logicmem.models.llm.llamacpp``); prints a markdown table
and JSON.

    .venv/bin/python benchmarks/llm_engines.py [--threads 1] [--rounds 2] [--cold] [--out FILE]

Each engine runs in a fresh process (so load time and peak RSS are its own), with the same
thread count for both (1 by default: the fair setting on a shared 2-core machine), in
``--rounds`` alternating rounds; the table keeps each number's best round (the JSON has every
round). Measured:
load time (transformers: from its float16 cache; ``--cold`` also times the first-ever load
into an empty cache), prefill and generation throughput, loglik latency on a 119-token
text, how closely the two engines' logliks agree, JSON validity with a schema, peak RSS,
installed sizes, and what llama.cpp offers for loglik (prompt logprobs, logits) and JSON.
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
import urllib.request
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

# The same text as benchmarks/local_llm.py, so the two benchmarks' numbers compare.
from local_llm import TEXT

PREFILL_TOKENS = 256
GEN_PROMPT = "Write a short story about a robot."
GEN_TOKENS = 64
# Pairs scored by both engines: how far apart their logliks are, and whether they rank alike.
PAIRS = [
    ("The capital of France is", " Paris"),
    ("The capital of France is", " banana"),
    ("The capital of France is ", "Paris"),
    ("", "Hello world"),
    ("Alice is allergic to", " peanuts, so she checks the ingredients."),
    ("Alice is allergic to", " the colour blue, so she checks the sky."),
]
YES_NO = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["answer"],
    "additionalProperties": False,
}
JSON_PROMPTS = [
    "Is Paris in France? Answer yes or no.",
    "Is the sun cold? Answer yes or no.",
    "Do cats bark? Answer yes or no.",
    "Is water wet? Answer yes or no.",
]
JSON_MAX_TOKENS = 32
# Rule-shaped scoring, as rulemem's RPC validation asks it: a short head after 3 frames.
RULE_BODY = ["X is a parent of Z", "Z is a parent of Y"]
RULE_EVIDENCE = ["Alice is a parent of Bob", "Bob is a parent of Carol"]
RULE_HEADS = [
    "X is a grandparent of Y",
    "X is older than Y",
    "X and Y are related",
    "X lives near Y",
    "X is a cousin of Y",
]
INSTALL = ("xllamacpp", "torch", "transformers", "accelerate", "gguf", "tokenizers", "safetensors")


def median_s(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # KiB on Linux


def loglik_prefixes(n: int) -> list[tuple[str, str]]:
    """(prefix, continuation) of TEXT split after 60 words; each prefix starts differently
    so that llama.cpp's prompt cache cannot reuse the previous call's work."""
    words = TEXT.split(" ")
    prefix, continuation = " ".join(words[:60]), " " + " ".join(words[60:])
    return [(f"Note {i + 1}. {prefix}", continuation) for i in range(n)]


def rule_calls() -> list[tuple[str, str]]:
    from logicmem.routes.rulemem.rpc import frames

    return [(f, " " + h) for h in RULE_HEADS for f in frames(RULE_BODY, RULE_EVIDENCE)]


def time_rules(llm: Any) -> dict[str, float]:
    """Per-call latency over every (frame, head) call of RULE_HEADS, in order."""
    calls = rule_calls()
    llm.loglik(*calls[0])  # warm-up
    times = []
    for prefix, cont in calls:
        start = time.perf_counter()
        llm.loglik(prefix, cont)
        times.append(time.perf_counter() - start)
    return {"calls": len(calls), "median_ms": round(statistics.median(times) * 1000, 1)}


def json_valid(llm: Any) -> int:
    from logicmem.models.llm.base import extract_json

    valid = 0
    for prompt in JSON_PROMPTS:
        reply = llm.chat(
            [{"role": "user", "content": prompt}],
            schema=YES_NO,
            max_tokens=JSON_MAX_TOKENS,
            temperature=0,
        )
        try:
            value = extract_json(reply)
        except ValueError:
            continue
        valid += isinstance(value, dict) and value.get("answer") in ("yes", "no")
    return valid


# -- the engines, each in its own process ------------------------------------------------------


def child_transformers(threads: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    import torch

    from logicmem.config import LLMSettings
    from logicmem.models.llm.local_gguf import LocalGGUF, cache_dir, gguf_path

    t_import = time.perf_counter() - t0
    from_cache = (cache_dir(gguf_path()) / "config.json").is_file()
    llm = LocalGGUF(LLMSettings(threads=threads))
    t1 = time.perf_counter()
    model, tok = llm._load()
    out: dict[str, Any] = {
        "engine": "transformers",
        "version": __import__("transformers").__version__,
        "threads": threads,
        "import_s": round(t_import, 2),
        "load_s": round(time.perf_counter() - t1, 2),
        "load_from_cache": from_cache,
    }
    if os.environ.get("BENCH_LOAD_ONLY"):
        out["peak_rss_mb"] = peak_rss_mb()
        return out
    ids = tok(" ".join([TEXT] * 3), return_tensors="pt").input_ids[:, :PREFILL_TOKENS]
    short = tok(GEN_PROMPT, return_tensors="pt").input_ids

    def generate() -> None:
        model.generate(
            short,
            attention_mask=torch.ones_like(short),
            max_new_tokens=GEN_TOKENS,
            min_new_tokens=GEN_TOKENS,
            do_sample=False,
            pad_token_id=tok.eos_token_id,
        )

    with torch.inference_mode():
        model(ids)  # warm-up
        prefill = median_s(lambda: model(ids), 3)
        gen = median_s(generate, 2)
        short_prefill = median_s(lambda: model(short), 3)
    pairs = loglik_prefixes(6)
    llm.loglik(*pairs[0])  # warm-up
    loglik = median_s(lambda: llm.loglik(*pairs.pop()), 5)
    out.update(
        prefill_tokens=int(ids.shape[1]),
        prefill_tok_s=round(ids.shape[1] / prefill, 1),
        gen_tok_s=round(GEN_TOKENS / max(gen - short_prefill, 1e-9), 1),
        loglik_text_tokens=len(tok(loglik_prefixes(1)[0][0] + loglik_prefixes(1)[0][1]).input_ids),
        loglik_ms=round(loglik * 1000, 1),
        rule_loglik=time_rules(llm),
        pair_logliks=[round(llm.loglik(p, c), 4) for p, c in PAIRS],
        json_valid=json_valid(llm),
        json_how="schema in the system prompt (no constrained decoding)",
        peak_rss_mb=peak_rss_mb(),
    )
    return out


def child_llamacpp(threads: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    import xllamacpp as xlc

    from logicmem.config import LLMSettings
    from logicmem.models.llm.llamacpp import LlamaCppLLM
    from logicmem.models.llm.openai_compat import OpenAICompatLLM

    t_import = time.perf_counter() - t0
    llm = LlamaCppLLM(LLMSettings(provider="llamacpp", threads=threads))
    t1 = time.perf_counter()
    server = llm._load()
    out: dict[str, Any] = {
        "engine": "llama.cpp (xllamacpp, in-process)",
        "version": xlc.__version__,
        "threads": threads,
        "import_s": round(t_import, 2),
        "load_s": round(time.perf_counter() - t1, 2),
        "system_info": xlc.get_system_info().strip(),
    }
    ids = llm._tokenize(" ".join([TEXT] * 3))[:PREFILL_TOKENS]

    def prefill() -> dict[str, Any]:
        req = {"prompt": ids, "max_tokens": 1, "temperature": 0, "cache_prompt": False}
        return dict(server.handle_completions(req))

    def generate() -> dict[str, Any]:
        req = {
            "prompt": GEN_PROMPT,
            "max_tokens": GEN_TOKENS,
            "temperature": 0,
            "ignore_eos": True,
            "cache_prompt": False,
        }
        return dict(server.handle_completions(req))

    prefill()  # warm-up
    prefill_ms = statistics.median(prefill()["timings"]["prompt_ms"] for _ in range(3))
    gen_wall = median_s(generate, 2)
    gen_timings = generate()["timings"]
    pairs = loglik_prefixes(6)
    llm.loglik(*pairs[0])  # warm-up (the first grammar builds LLGuidance's token tables)
    loglik = median_s(lambda: llm.loglik(*pairs.pop()), 5)
    same = loglik_prefixes(1)[0]
    llm.loglik(*same)
    loglik_cached = median_s(lambda: llm.loglik(*same), 5)
    # Over HTTP: logicmem's OpenAI-compatible backend against the same (in-process) server.
    http = OpenAICompatLLM(
        LLMSettings(
            provider="openai",
            base_url=server.listening_address + "/v1",
            model="smollm2",
            api_key=llm._key,
        )
    )
    chat = [{"role": "user", "content": "What is the capital of France?"}]
    http.chat(chat, max_tokens=8)  # type: ignore[arg-type]
    http_chat = median_s(lambda: http.chat(chat, max_tokens=8), 3)  # type: ignore[arg-type]
    inproc_chat = median_s(lambda: llm.chat(chat, max_tokens=8), 3)  # type: ignore[arg-type]
    out.update(
        prefill_tokens=len(ids),
        prefill_tok_s=round(len(ids) / (prefill_ms / 1000), 1),
        gen_tok_s=round(GEN_TOKENS / (gen_timings["predicted_ms"] / 1000), 1),
        gen_tok_s_wall=round(GEN_TOKENS / gen_wall, 1),
        loglik_text_tokens=len(llm._tokenize(same[0] + same[1])),
        loglik_ms=round(loglik * 1000, 1),
        loglik_same_prefix_ms=round(loglik_cached * 1000, 1),
        rule_loglik=time_rules(llm),
        chat_8_tokens_ms={
            "in_process": round(inproc_chat * 1000, 1),
            "http_openai_sdk": round(http_chat * 1000, 1),
        },
        pair_logliks=[round(llm.loglik(p, c), 4) for p, c in PAIRS],
        json_valid=json_valid(llm),
        json_how="response_format json_schema (llama.cpp constrained decoding)",
        probes=probe_llamacpp(xlc, server, llm._key, http),
        peak_rss_mb=peak_rss_mb(),
    )
    return out


def probe_llamacpp(xlc: Any, server: Any, key: str, http: Any) -> dict[str, Any]:
    """What llama.cpp offers for loglik and JSON, asked of the running server."""
    from logicmem.errors import ModelError

    prompt = "The capital of France is Paris"

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        req = urllib.request.Request(
            server.listening_address + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
        )
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(req, timeout=60) as resp:
            return dict(json.loads(resp.read()))

    echo = post(
        "/v1/completions",
        {"prompt": prompt, "echo": True, "logprobs": 1, "max_tokens": 1, "temperature": 0},
    )
    native = post("/completion", {"prompt": prompt, "n_probs": 1, "n_predict": 1})
    lp = echo["choices"][0].get("logprobs") or {}
    try:
        http.loglik("The capital of France is", " Paris")
        backend = "scored"
    except ModelError as exc:
        backend = str(exc)
    return {
        "v1_completions_echo": {
            "prompt_tokens": echo["usage"]["prompt_tokens"],
            "logprob_entries": len(lp.get("content") or lp.get("token_logprobs") or []),
            "text_echoed": echo["choices"][0]["text"].startswith(prompt),
        },
        "completion_n_probs_entries": len(native.get("completion_probabilities") or []),
        "openai_compat_loglik": backend,
        "server_methods": sorted(m for m in dir(server) if not m.startswith("_")),
        "json_schema_to_grammar": xlc.json_schema_to_grammar(YES_NO).splitlines()[0],
    }


# -- the parent --------------------------------------------------------------------------------


def dist_size_mb(name: str) -> float | None:
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None
    total = 0
    for f in dist.files or []:
        path = Path(str(dist.locate_file(f)))
        if path.is_file():
            total += path.stat().st_size
    return round(total / 1e6, 1)


# Best of the rounds, per number: on a shared machine the slow runs measure the neighbours.
LOWER_IS_BETTER = ("load_s", "import_s", "loglik_ms", "loglik_same_prefix_ms")
HIGHER_IS_BETTER = ("prefill_tok_s", "gen_tok_s", "gen_tok_s_wall")


def best_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    best = dict(runs[0])
    for key in LOWER_IS_BETTER:
        if key in best:
            best[key] = min(r[key] for r in runs)
    for key in HIGHER_IS_BETTER:
        if key in best:
            best[key] = max(r[key] for r in runs)
    best["rule_loglik"] = min((r["rule_loglik"] for r in runs), key=lambda x: x["median_ms"])
    if "chat_8_tokens_ms" in best:
        best["chat_8_tokens_ms"] = {
            k: min(r["chat_8_tokens_ms"][k] for r in runs) for k in best["chat_8_tokens_ms"]
        }
    best["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
    return best


def run_child(engine: str, threads: int, env_extra: dict[str, str]) -> dict[str, Any]:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", **env_extra)
    proc = subprocess.run(
        [sys.executable, __file__, "--child", engine, "--threads", str(threads)],
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"the {engine} run failed:\n{proc.stderr[-3000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def table(report: dict[str, Any]) -> str:
    tf, lc = report["transformers"], report["llamacpp"]
    cold = report.get("transformers_cold")
    size = report["install_mb"]
    stack = sum(size[n] or 0 for n in ("torch", "transformers", "accelerate", "gguf"))
    diff = report["loglik_agreement"]
    rows = [
        ("", "transformers + gguf", "llama.cpp (xllamacpp)", "how measured"),
        ("---", "---", "---", "---"),
        (
            "load",
            f"{tf['load_s']} s (float16 cache)"
            + (f"; {cold['load_s']} s first ever" if cold else ""),
            f"{lc['load_s']} s",
            "fresh process, wall clock of the engine's load (imports excluded)",
        ),
        (
            "imports",
            f"{tf['import_s']} s",
            f"{lc['import_s']} s",
            "import torch + logicmem backend / import xllamacpp + backend",
        ),
        (
            f"prefill ({tf['prefill_tokens']} tokens)",
            f"{tf['prefill_tok_s']} tok/s",
            f"{lc['prefill_tok_s']} tok/s",
            "median of 3; transformers: one forward pass; llama.cpp: its prompt_ms, no cache",
        ),
        (
            f"generation ({GEN_TOKENS} tokens, greedy)",
            f"{tf['gen_tok_s']} tok/s",
            f"{lc['gen_tok_s']} tok/s ({lc['gen_tok_s_wall']} wall, incl. prompt)",
            "transformers: generate() minus its prefill; llama.cpp: its predicted_ms",
        ),
        (
            f"loglik ({tf['loglik_text_tokens']}-token text, 60-word prefix)",
            f"{tf['loglik_ms']} ms",
            f"{lc['loglik_ms']} ms ({lc['loglik_same_prefix_ms']} ms same prefix again)",
            "median of 5, new prefix each call; llama.cpp: forced-token grammar",
        ),
        (
            "loglik, rule-shaped (rulemem RPC frames)",
            f"{tf['rule_loglik']['median_ms']} ms",
            f"{lc['rule_loglik']['median_ms']} ms",
            f"median per call over {tf['rule_loglik']['calls']} calls: "
            f"{len(RULE_HEADS)} heads x 3 frames",
        ),
        (
            "loglik agreement",
            "reference",
            f"largest difference {diff['max_abs_diff']} nats; same ranking: {diff['same_ranking']}",
            f"{len(PAIRS)} (prefix, continuation) pairs scored by both",
        ),
        (
            f"valid JSON with a schema ({len(JSON_PROMPTS)} prompts)",
            f"{tf['json_valid']}/{len(JSON_PROMPTS)}",
            f"{lc['json_valid']}/{len(JSON_PROMPTS)}",
            f"yes/no schema, max_tokens {JSON_MAX_TOKENS}, temperature 0",
        ),
        (
            "chat, 8 tokens",
            "—",
            f"{lc['chat_8_tokens_ms']['in_process']} ms in-process, "
            f"{lc['chat_8_tokens_ms']['http_openai_sdk']} ms over HTTP",
            "median of 3; HTTP: OpenAICompatLLM against the same server",
        ),
        (
            "peak RSS",
            f"{tf['peak_rss_mb']} MB" + (f" ({cold['peak_rss_mb']} MB first ever)" if cold else ""),
            f"{lc['peak_rss_mb']} MB",
            "ru_maxrss of the engine's process at the end (largest round)",
        ),
        (
            "installed size",
            f"{stack:.0f} MB (torch {size['torch']}, transformers {size['transformers']}, "
            f"accelerate {size['accelerate']}, gguf {size['gguf']})",
            f"{size['xllamacpp']} MB",
            "files in each distribution's RECORD",
        ),
    ]
    return "\n".join("| " + " | ".join(str(c) for c in row) + " |" for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="threads for both engines")
    parser.add_argument("--cold", action="store_true", help="also time transformers' first load")
    parser.add_argument("--rounds", type=int, default=2, help="fresh runs per engine (best kept)")
    parser.add_argument("--out", type=Path, help="write the JSON report here too")
    parser.add_argument("--child", choices=["transformers", "llamacpp"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        fn = child_transformers if args.child == "transformers" else child_llamacpp
        print(json.dumps(fn(args.threads)))
        return
    report: dict[str, Any] = {
        "machine": {
            "cpus": os.cpu_count(),
            "cpu": platform.processor() or platform.machine(),
            "python": platform.python_version(),
            "load_avg_at_start": [round(x, 2) for x in os.getloadavg()],
        },
        "threads": args.threads,
        "install_mb": {name: dist_size_mb(name) for name in INSTALL},
    }
    if args.cold:
        with tempfile.TemporaryDirectory() as cache:
            env = {"XDG_CACHE_HOME": cache, "BENCH_LOAD_ONLY": "1"}
            report["transformers_cold"] = run_child("transformers", args.threads, env)
    rounds: dict[str, list[dict[str, Any]]] = {"transformers": [], "llamacpp": []}
    for _ in range(args.rounds):  # alternating, so a burst of other load hits both engines
        for engine, runs in rounds.items():
            runs.append(run_child(engine, args.threads, {}))
    for engine, runs in rounds.items():
        report[engine] = best_of(runs)
        report[f"{engine}_rounds"] = runs
    a, b = report["transformers"]["pair_logliks"], report["llamacpp"]["pair_logliks"]
    report["loglik_agreement"] = {
        "pairs": [list(p) for p in PAIRS],
        "max_abs_diff": round(max(abs(x - y) for x, y in zip(a, b, strict=True)), 3),
        "same_ranking": sorted(range(len(a)), key=a.__getitem__)
        == sorted(range(len(b)), key=b.__getitem__),
    }
    report["machine"]["load_avg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)
    print()
    print(f"threads: {args.threads} for both engines; best of {args.rounds} rounds per number")
    print(table(report))


if __name__ == "__main__":
    main()
