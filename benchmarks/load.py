"""Bounded load on ``logicmem serve`` over 127.0.0.1, against 1 and 2 workers, per backend.

    python benchmarks/load.py --backends sqlite,postgresql --workers 1,2 \\
        --requests 600 --time-cap 180 --out bench-out/load.json

For each backend one store is seeded through the Python API (``--users`` users, each with
``--seed-turns`` messages, the rule extractor: no LLM), then served by ``logicmem serve
--workers N`` for every N of ``--workers`` in turn. ``--clients`` concurrent clients
(httpx, asyncio, one process) send the same seeded list of ``--requests`` requests: a mix
of add, search and context (``--mix``) for random users, stopping at ``--time-cap``
seconds. Reported per run: p50/p95/p99 latency per route, throughput, errors (anything
but the expected status), and per backend the throughput of the largest worker count over
1 worker, measured in the same run: ``--rounds`` runs of each worker count, in alternating
order, the median round of each standing for it (every round is in the JSON).

Beside it, the HTTP overhead: the search requests of the list, sent one at a time to one
worker and made through the Python API (``TenantMemory.search``, what the route calls) in
this process on the same store, as a ratio of medians. Each side first makes one
unmeasured pass over the same requests, so both measure with warm caches (the request
texts repeat, so their query vectors come from the embedder's cache on both sides): the
ratio is the service's own cost (HTTP, JSON, the key check, tenancy) over the search's.

The load generator shares the machine's cores with the server: with 2 cores, 2 workers
cannot reach 2x. PostgreSQL is a throwaway pgserver unless ``--pg URL`` names a server.
The embedder is the embedded MiniLM (1 thread per worker) and the LLM is off.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stores import Postgres, _git_commit, _git_dirty

ROOT = Path(__file__).resolve().parents[1]

# Ordinary facts and requests, written for this benchmark (no benchmark item among them).
FACTS = [
    "I am allergic to shellfish.",
    "My daughter Ana is learning the violin.",
    "I work night shifts at the depot on weekends.",
    "We adopted a rescue greyhound called Pepper.",
    "I am saving for a deposit on a flat.",
    "My knee still hurts after the surgery in spring.",
    "I prefer trains to planes whenever I can.",
    "My brother lives in Porto and visits twice a year.",
    "I stopped drinking coffee last month.",
    "I teach a pottery class on Tuesday evenings.",
    "My partner is vegetarian.",
    "I have a presentation to the board next Friday.",
    "We are renovating the kitchen this summer.",
    "I take blood thinners every morning.",
    "My son plays goalkeeper for the school team.",
    "I moved to a flat on the fourth floor without a lift.",
]
REQUESTS = [
    "Any ideas for a quick weeknight meal?",
    "Help me sketch a plan for the long weekend.",
    "I need a gift idea for a ten-year-old.",
    "Is there a fitness class you would suggest for me?",
    "Draft a schedule for my coming week.",
    "Which dish could I bring to a neighbourhood picnic?",
    "Where could we go on holiday this autumn?",
    "What is the easiest way for me to travel to the trade fair?",
    "Put together a packing list for a day at the stadium.",
    "Suggest a hobby I could pick up this winter.",
]
ROUTES = {
    "add": "/v1/users/{u}/memories",
    "search": "/v1/users/{u}/search",
    "context": "/v1/users/{u}/context",
}
EXPECTED = {"add": 201, "search": 200, "context": 200}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


BLAS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
BLAS_THREADS: int | None = None  # --blas-threads: every server process's BLAS threads


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOGICMEM_")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", LOGICMEM_LLM="none")
    if BLAS_THREADS is not None:
        env.update({var: str(BLAS_THREADS) for var in BLAS})
    return env


def _user(i: int) -> str:
    return f"user{i:03d}"


def seed(store: str, users: int, turns: int, rng: random.Random) -> dict[str, Any]:
    """Each user's history, through the Python API; returns the API key and timing."""
    os.environ.update(_env())
    from logicmem import Memory
    from logicmem.service.keys import KeyRing
    from logicmem.service.tenancy import TenantMemory

    started = time.perf_counter()
    mem = Memory(store, config={"llm": {"provider": "none"}})
    tenant = TenantMemory(mem, "load")
    for i in range(users):
        facts = rng.sample(FACTS, turns)
        tenant.add([{"role": "user", "content": f} for f in facts], user_id=_user(i))
    key = KeyRing(mem.store).create("load", name="benchmarks/load.py")[1]
    memories = tenant.stats()["memories"]
    mem.close()
    return {"key": key, "seconds": round(time.perf_counter() - started, 1), "memories": memories}


def workload(n: int, users: int, mix: dict[str, float], rng: random.Random) -> list[dict]:
    kinds = list(mix)
    weights = [mix[k] for k in kinds]
    out = []
    for i in range(n):
        kind = rng.choices(kinds, weights)[0]
        user = _user(rng.randrange(users))
        if kind == "add":
            body: dict[str, Any] = {"text": rng.choice(FACTS), "session_id": f"load-{i}"}
        elif kind == "search":
            body = {"query": rng.choice(REQUESTS), "k": 10}
        else:
            body = {"query": rng.choice(REQUESTS), "k": 10}
        out.append({"kind": kind, "user": user, "body": body})
    return out


class Server:
    def __init__(self, store: str, workers: int, log: Path) -> None:
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "logicmem.cli.main", "serve", "--store", store, "--port",
               str(self.port), "--workers", str(workers), "--log-level", "warning"]  # fmt: skip
        self.log = log.open("w")
        self.proc = subprocess.Popen(cmd, env=_env(), stdout=self.log, stderr=subprocess.STDOUT)

    def wait(self, key: str, timeout_s: float = 180) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"logicmem serve exited ({self.proc.returncode})")
            try:
                if httpx.get(self.base + "/readyz", timeout=30).status_code == 200:
                    # every worker warm: a few authenticated calls
                    for _ in range(8):
                        httpx.post(
                            self.base + ROUTES["search"].format(u=_user(0)),
                            json={"query": "warm up"},
                            headers={"Authorization": f"Bearer {key}"},
                            timeout=60,
                        )
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        raise RuntimeError("logicmem serve did not become ready")

    def cpu_by_process(self) -> dict[int, float]:
        """CPU seconds so far of the server and each of its worker processes, by pid."""
        import psutil

        try:
            root = psutil.Process(self.proc.pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return {}
        out = {}
        for p in procs:
            try:
                t = p.cpu_times()
                out[p.pid] = t.user + t.system
            except psutil.NoSuchProcess:
                pass
        return out

    def cpu_seconds(self) -> float:
        return sum(self.cpu_by_process().values())

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


async def drive(
    base: str,
    key: str,
    requests: list[dict],
    clients: int,
    cap_s: float,
    run: int = 0,
    keepalive: bool = True,
) -> dict[str, Any]:
    """Send ``requests`` from ``clients`` concurrent clients. Each add is made new for
    ``run`` (a number in its text), so every run writes new memories rather than repeats
    that the write path would merge."""
    queue: asyncio.Queue[dict] = asyncio.Queue()
    for i, r in enumerate(requests):
        if r["kind"] == "add":
            text = f"{r['body']['text'][:-1]}, I said on visit {run * len(requests) + i}."
            r = {**r, "body": {**r["body"], "text": text}}
        queue.put_nowait(r)
    latencies: dict[str, list[float]] = {k: [] for k in ROUTES}
    errors: dict[str, int] = {}
    deadline = time.monotonic() + cap_s
    # Without keep-alive every request is a new connection, which the kernel hands to
    # whichever worker accepts first; with it, each client stays on the worker that
    # accepted its connection, and the workers' shares of the load depend on that draw.
    limits = httpx.Limits(
        max_connections=clients, max_keepalive_connections=clients if keepalive else 0
    )
    headers = {"Authorization": f"Bearer {key}"}

    async def client(http: httpx.AsyncClient) -> None:
        while time.monotonic() < deadline:
            try:
                r = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            url = base + ROUTES[r["kind"]].format(u=r["user"])
            t0 = time.perf_counter()
            try:
                resp = await http.post(url, json=r["body"], headers=headers)
                ok = resp.status_code == EXPECTED[r["kind"]]
                label = str(resp.status_code)
            except httpx.HTTPError as exc:
                ok, label = False, type(exc).__name__
            latencies[r["kind"]].append(time.perf_counter() - t0)
            if not ok:
                errors[f"{r['kind']}:{label}"] = errors.get(f"{r['kind']}:{label}", 0) + 1

    started = time.perf_counter()
    async with httpx.AsyncClient(timeout=120, limits=limits) as http:
        await asyncio.gather(*(client(http) for _ in range(clients)))
    wall = time.perf_counter() - started
    done = sum(len(v) for v in latencies.values())
    return {
        "requests_sent": done,
        "requests_planned": len(requests),
        "capped": done < len(requests),
        "seconds": round(wall, 2),
        "throughput_rps": round(done / wall, 2),
        "errors": errors,
        "error_count": sum(errors.values()),
        "routes": {k: _summary(v) for k, v in latencies.items() if v},
    }


def _machine_busy() -> float:
    """CPU seconds the whole machine has been busy (every process: the server, this
    load generator, PostgreSQL, anything else running)."""
    import psutil

    t = psutil.cpu_times()
    return float(sum(t) - t.idle - getattr(t, "iowait", 0.0))


def _median_round(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    ordered = sorted(rounds, key=lambda r: r["throughput_rps"])
    return ordered[(len(ordered) - 1) // 2]


def _summary(values: list[float]) -> dict[str, Any]:
    ms = sorted(v * 1000 for v in values)

    def q(p: float) -> float:
        return round(ms[min(len(ms) - 1, int(p * len(ms)))], 1)

    return {"n": len(ms), "p50_ms": q(0.5), "p95_ms": q(0.95), "p99_ms": q(0.99)}


def overhead(store: str, base: str, key: str, searches: list[dict]) -> dict[str, Any]:
    """The search requests one at a time: over HTTP (one worker) and in this process,
    each after one unmeasured pass over the same requests (warm caches on both sides)."""
    from logicmem import Memory
    from logicmem.service.tenancy import TenantMemory

    http_ms: list[float] = []
    with httpx.Client(timeout=60, headers={"Authorization": f"Bearer {key}"}) as client:
        for record in (None, http_ms):
            for r in searches:
                t0 = time.perf_counter()
                resp = client.post(base + ROUTES["search"].format(u=r["user"]), json=r["body"])
                if record is not None:
                    record.append((time.perf_counter() - t0) * 1000)
                assert resp.status_code == 200, resp.text
    mem = Memory(store, config={"llm": {"provider": "none"}})
    tenant = TenantMemory(mem, "load")
    api_ms: list[float] = []
    for record in (None, api_ms):
        for r in searches:
            t0 = time.perf_counter()
            tenant.search(r["body"]["query"], user_id=r["user"], k=r["body"]["k"])
            if record is not None:
                record.append((time.perf_counter() - t0) * 1000)
    mem.close()
    http_p50, api_p50 = statistics.median(http_ms), statistics.median(api_ms)
    return {
        "n": len(searches),
        "http_p50_ms": round(http_p50, 2),
        "python_api_p50_ms": round(api_p50, 2),
        "ratio_http_over_api": round(http_p50 / api_p50, 2),
        "http_overhead_p50_ms": round(http_p50 - api_p50, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backends", default="sqlite,postgresql")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--seed-turns", type=int, default=6)
    ap.add_argument("--requests", type=int, default=600)
    ap.add_argument("--time-cap", type=float, default=180.0, help="seconds per run")
    ap.add_argument("--mix", default="add=0.2,search=0.4,context=0.4")
    ap.add_argument("--overhead-searches", type=int, default=100)
    ap.add_argument(
        "--rounds", type=int, default=3, help="runs of each worker count (median reported)"
    )
    ap.add_argument(
        "--keepalive",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="reuse each client's connection (default) or open one per request",
    )
    ap.add_argument(
        "--blas-threads",
        type=int,
        help="BLAS threads of every server process (default: logicmem serve's own choice, "
        "all cores for 1 worker and cores / N for N)",
    )
    ap.add_argument("--pg", metavar="URL", help="an existing PostgreSQL (default: pgserver)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    global BLAS_THREADS
    BLAS_THREADS = args.blas_threads
    mix = {k: float(v) for k, v in (p.split("=") for p in args.mix.split(","))}
    workers = [int(w) for w in args.workers.split(",")]
    rng = random.Random(args.seed)
    requests = workload(args.requests, args.users, mix, rng)
    searches = [r for r in requests if r["kind"] == "search"][: args.overhead_searches]
    tmp = Path(tempfile.mkdtemp(prefix="lmload"))
    report: dict[str, Any] = {
        "command": " ".join(["python", "benchmarks/load.py", *sys.argv[1:]]),
        "commit": _git_commit(),
        "dirty": _git_dirty(),
        "machine": {"cpus": os.cpu_count()},
        "clients": args.clients,
        "keepalive": args.keepalive,
        "blas_threads": args.blas_threads,
        "users": args.users,
        "mix": mix,
        "requests": args.requests,
        "time_cap_s": args.time_cap,
        "backends": {},
    }
    pg = None
    try:
        for backend in args.backends.split(","):
            if backend == "sqlite":
                store = str(tmp / "load.db")
            else:
                pg = pg or Postgres(args.pg)
                store = pg.store_url(f"load_{uuid.uuid4().hex[:8]}")
            seeded = seed(store, args.users, args.seed_turns, random.Random(args.seed))
            print(f"[{backend}] seeded {seeded['memories']} memories in {seeded['seconds']} s")
            rounds: dict[str, list[dict[str, Any]]] = {str(n): [] for n in workers}
            for r in range(args.rounds):
                # Alternate the order, so neither count always runs on the larger store.
                for n in workers if r % 2 == 0 else workers[::-1]:
                    server = Server(store, n, tmp / f"serve-{backend}-{n}-{r}.log")
                    try:
                        server.wait(seeded["key"])
                        by0 = server.cpu_by_process()
                        cpu0, own0 = sum(by0.values()), time.process_time()
                        busy0 = _machine_busy()
                        result = asyncio.run(
                            drive(
                                server.base,
                                seeded["key"],
                                requests,
                                args.clients,
                                args.time_cap,
                                run=len(rounds[str(n)]) * 2 + (n > 1),
                                keepalive=args.keepalive,
                            )
                        )
                        wall = result["seconds"]
                        cpu = server.cpu_seconds() - cpu0
                        result["server_cores_busy"] = round(cpu / wall, 2)
                        by1 = server.cpu_by_process()
                        result["server_cores_by_process"] = sorted(
                            (round((v - by0.get(pid, 0.0)) / wall, 2) for pid, v in by1.items()),
                            reverse=True,
                        )
                        result["client_cores_busy"] = round((time.process_time() - own0) / wall, 2)
                        result["machine_cores_busy"] = round((_machine_busy() - busy0) / wall, 2)
                        if n == 1 and r == 0 and searches:
                            result["http_overhead"] = overhead(
                                store, server.base, seeded["key"], searches
                            )
                    finally:
                        server.stop()
                    rounds[str(n)].append(result)
                    print(f"[{backend}] round {r + 1}, {n} worker(s): {json.dumps(result)}")
            # Each worker count's median round by throughput stands for it in the table.
            runs = {n: _median_round(rs) for n, rs in rounds.items()}
            if "1" in runs and "http_overhead" in rounds["1"][0]:
                runs["1"] = {**runs["1"], "http_overhead": rounds["1"][0]["http_overhead"]}
            entry: dict[str, Any] = {
                "seed": seeded | {"key": "(redacted)"},
                "runs": runs,
                "rounds": rounds,
            }
            if len(workers) > 1:
                lo, hi = str(min(workers)), str(max(workers))
                entry["scaling"] = round(runs[hi]["throughput_rps"] / runs[lo]["throughput_rps"], 2)
                entry["scaling_per_round"] = [
                    round(b["throughput_rps"] / a["throughput_rps"], 2)
                    for a, b in zip(rounds[lo], rounds[hi], strict=True)
                ]
            report["backends"][backend] = entry
            if backend != "sqlite":
                from logicmem.store.postgres import drop_schema

                drop_schema(store)
    finally:
        if pg is not None and pg.srv is not None:
            pg.srv.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(markdown(report))


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "| backend | workers | req | s | req/s | errors | cores: server / machine | route "
        "| p50 ms | p95 ms | p99 ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for backend, entry in report["backends"].items():
        for n, run in entry["runs"].items():
            cores = f"{run.get('server_cores_busy')} / {run.get('machine_cores_busy')}"
            for route, q in run["routes"].items():
                lines.append(
                    f"| {backend} | {n} | {run['requests_sent']} | {run['seconds']} | "
                    f"{run['throughput_rps']} | {run['error_count']} | {cores} | {route} | "
                    f"{q['p50_ms']} | {q['p95_ms']} | {q['p99_ms']} |"
                )
        if "scaling" in entry:
            lines.append(
                f"\n{backend}: throughput of max workers / 1 worker = {entry['scaling']} "
                f"(median rounds; per round {entry['scaling_per_round']})"
            )
        over = entry["runs"].get("1", {}).get("http_overhead")
        if over:
            lines.append(
                f"{backend}: search one at a time, HTTP p50 {over['http_p50_ms']} ms vs "
                f"Python API {over['python_api_p50_ms']} ms (x{over['ratio_http_over_api']})"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
