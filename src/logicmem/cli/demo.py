"""``logicmem demo``: ingest a sample conversation, then show search vs context.

The sample (package data ``demo.json``, original text) hides a decision-critical fact in
its first session and asks, weeks later, a request that depends on it without naming it.
The demo reports honestly whether each side surfaced that fact.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any

from logicmem.cli.commands import open_memory
from logicmem.cli.output import context_lines, hit_line, side_by_side


def load_demo() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        resources.files("logicmem.data").joinpath("demo.json").read_text()
    )
    return data


def _found(source_turns: list[list[str]], turn: str) -> int | None:
    for rank, turns in enumerate(source_turns, 1):
        if turn in turns:
            return rank
    return None


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    demo = load_demo()
    tmp: Path | None = None
    if not args.store:
        # mkdtemp, not TemporaryDirectory: the latter's finalizer would delete a kept store.
        tmp = Path(tempfile.mkdtemp(prefix="logicmem-demo-"))
        args.store = str(tmp / "demo.db")
    user = demo["user"]
    try:
        with open_memory(args) as mem:
            mem.delete_user(user)  # the demo starts from a clean slate for its user
            print(f"logicmem demo — store {args.store}")
            print(f"Ingesting {len(demo['sessions'])} sessions of {user}'s conversations...")
            for session in demo["sessions"]:
                messages = [
                    {
                        "role": t["role"],
                        "speaker": user if t["role"] == "user" else None,
                        "text": t["text"],
                        "turn_id": t["turn"],
                    }
                    for t in session["turns"]
                ]
                mem.add(messages, user_id=user, session_id=session["session"],
                        timestamp=session["time"])  # fmt: skip
            n = len(mem.get_all(user_id=user))
            print(f"{n} memories stored (rule extractor, MiniLM embeddings).\n")
            query = demo["query"]
            result = mem.search(query, user_id=user, k=5)
            ctx = mem.context(query, user_id=user, k=8)
        print(f"Request, weeks later: “{query}”\n")
        left = ["search (hybrid, k=5)", ""]
        for hit in result.hits:
            left.extend(hit_line(hit.rank, hit).splitlines())
        right = ["context (all routes, k=8)", "", *context_lines(ctx)]
        print(side_by_side(left, right))
        critical = demo["critical_turn"]
        in_search = _found([h.source_turns for h in result.hits], critical)
        in_ctx = _found([i.source_turns for i in ctx.items], critical)
        print(f"\nThe decisive fact (turn {critical}): {demo['why']}")
        for name, rank in (("search", in_search), ("context", in_ctx)):
            verdict = f"found at rank {rank}" if rank else "MISSED — not in what the model sees"
            print(f"  {name:<8} {verdict}")
        if in_ctx and not in_search:
            print(
                "  Similarity search cannot see this link; the visibility route put the fact in "
                "view because the request matched a situation in which it matters."
            )
        elif not in_ctx:
            print("  Neither route surfaced it: the knowledge resource has no matching situation.")
        print(f"\nDone in {time.perf_counter() - started:.1f} s.")
        if tmp is not None and args.keep:
            tmp = None  # leave it on disk
            print(f"Kept the store: {args.store}")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0
