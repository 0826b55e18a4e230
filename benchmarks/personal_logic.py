"""Does personal logic reach the context when a request touches its theme?

On ``benchmarks/data/personal_logic_eval.jsonl`` (values, goals and reasons behind past
decisions, each with two requests on its theme that share no content word with it and one
unrelated request; written by hand from general knowledge). One user's background is
every sentence of ``ordinary_chat.jsonl`` (376 memories of ordinary chat); each group's
memory is added to it, its three requests are asked through ``hybrid`` search and
``context()`` at k = 10 and 30, and the memory is deleted again. Reports how often the
memory is in the first k for its own requests (recall) and for the unrelated one (shown),
for all groups and without the three marked ``seeded`` (see benchmarks/data/README.md).
Runs offline on the embedded defaults:

    .venv/bin/python benchmarks/personal_logic.py [--json] [--set member_eval.jsonl]

``--set`` reads another set of the same shape: ``member_eval.jsonl`` holds household
members' standing facts ("{user}'s father uses a wheelchair"), two requests about that
member each, one about another member (``other_member``, reported as ``other``) and one
about no one.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from logicmem import Memory

HERE = Path(__file__).resolve().parent / "data"
KS = (10, 30)
USER = "Sam"


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (HERE / name).read_text().splitlines() if line.strip()]


def run(name: str = "personal_logic_eval.jsonl") -> dict[str, dict[str, dict[str, float]]]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    groups = _rows(name)
    seeded = any(g.get("seeded") for g in groups)
    chat = [r["text"] for r in _rows("ordinary_chat.jsonl")]
    counts: dict[str, dict[str, list[int]]] = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "p.db", config={"llm": {"provider": "none"}}) as mem,
    ):
        mem.add([{"content": t, "turn_id": f"bg{i}"} for i, t in enumerate(chat)],
                user_id=USER, session_id="background", infer=False)  # fmt: skip
        for g in groups:
            added = mem.add(
                [{"content": g["memory"].replace("{user}", USER), "turn_id": f"pl-{g['id']}"}],
                user_id=USER,
                session_id=g["id"],
                infer=False,
            )
            memory_id = added.added[0].id
            for subset in ("all", "unseeded") if seeded and not g.get("seeded") else ("all",):
                for method in ("hybrid", "context"):
                    row = counts.setdefault(f"{subset}:{method}", {})
                    for k in KS:
                        for query, kind in _queries(g):
                            ids = _ids(mem, method, query, k)
                            row.setdefault(f"{kind}@{k}", []).append(int(memory_id in ids))
            mem.delete(memory_id, user_id=USER)
    return {
        key: {metric: round(sum(v) / len(v), 3) for metric, v in row.items()}
        for key, row in counts.items()
    }


def _queries(group: dict) -> list[tuple[str, str]]:
    """(request, what it measures): its own requests, then the unrelated and other ones."""
    unrelated = group["unrelated"]
    out = [(q, "recall") for q in group["requests"]]
    out += [(q, "shown") for q in ([unrelated] if isinstance(unrelated, str) else unrelated)]
    if "other_member" in group:
        out.append((group["other_member"], "other"))
    return out


def _ids(mem: Memory, method: str, query: str, k: int) -> set[str]:
    if method == "context":
        return {i.memory_id for i in mem.context(query, user_id=USER, k=k).items}
    return {h.id for h in mem.search(query, user_id=USER, k=k, method=method).hits}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--set", default="personal_logic_eval.jsonl",
                        help="a file of benchmarks/data of the same shape")  # fmt: skip
    args = parser.parse_args()
    result = run(args.set)
    if args.json:
        print(json.dumps(result, indent=1))
        return
    other = any("other@10" in m for m in result.values())
    head = "| groups | method | recall @10 | recall @30 | unrelated shown @10 | shown @30 |"
    print(head + (" other member shown @10 | @30 |" if other else ""))
    print("|---|---|---|---|---|---|" + ("---|---|" if other else ""))
    for key, m in result.items():
        subset, method = key.split(":")
        line = (f"| {subset} | {method} | {m['recall@10']:.3f} | {m['recall@30']:.3f} | "
                f"{m['shown@10']:.3f} | {m['shown@30']:.3f} |")  # fmt: skip
        if other:
            line += f" {m['other@10']:.3f} | {m['other@30']:.3f} |"
        print(line)


if __name__ == "__main__":
    main()
