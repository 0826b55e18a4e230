"""Printing for the CLI: JSON for machines (``--json``), short text for people."""

from __future__ import annotations

import json
import sys
import textwrap
from typing import Any

from logicmem.types import Context, Hit


def emit_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


def hit_line(rank: int, hit: Hit) -> str:
    turns = ", ".join(hit.source_turns[:4])
    return (
        f"{rank:>2}. {hit.text}\n"
        f"    {hit.score_kind} {hit.score:.3f} · {hit.reason} · turns {turns} · id {hit.id[:8]}"
    )


def context_lines(ctx: Context) -> list[str]:
    lines = []
    for i, item in enumerate(ctx.items, 1):
        turns = ", ".join(item.source_turns[:4])
        lines.append(f"{i:>2}. {item.text}")
        lines.append(f"    [{item.route}] {item.reason} · turns {turns}")
    budget = f"k={ctx.budget.k}" + (
        f", max_tokens={ctx.budget.max_tokens}" if ctx.budget.max_tokens else ""
    )
    lines.append(f"-- {len(ctx.items)} items, ~{ctx.tokens} tokens, budget {budget}")
    return lines


def side_by_side(left: list[str], right: list[str], width: int = 60) -> str:
    """Two columns of wrapped text for the demo."""

    def wrap(lines: list[str]) -> list[str]:
        out = []
        for line in lines:
            out.extend(textwrap.wrap(line, width, subsequent_indent="    ") or [""])
        return out

    a, b = wrap(left), wrap(right)
    rows = max(len(a), len(b))
    a += [""] * (rows - len(a))
    b += [""] * (rows - len(b))
    return "\n".join(f"{x:<{width}} │ {y}" for x, y in zip(a, b, strict=True))
