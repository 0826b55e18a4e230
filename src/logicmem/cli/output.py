"""Printing for the CLI: JSON for machines (``--json``), short text for people."""

from __future__ import annotations

import json
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any, TextIO

from logicmem.errors import InputError
from logicmem.types import Context, Hit


def emit_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


def open_for_write(path: str | Path) -> TextIO:
    """Open ``path`` to write UTF-8 text, creating its folder if missing.

    A path that cannot be written (a folder, a file where a folder should be, no
    permission) is an ``InputError`` naming it, so the CLI exits 2 with one line.
    """
    target = Path(path)
    if target.is_dir():
        raise _unwritable(target, "it is a folder", "pass a file name")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        return target.open("w", encoding="utf-8")
    except OSError as exc:
        raise _unwritable(
            target, _reason(target.parent, exc, f"its folder {target.parent}")
        ) from None


def writable_dir(path: str | Path) -> Path:
    """Create the folder ``path`` if missing and check a file can be written in it.

    For commands that write a folder of outputs: call it before any work, so a bad
    path fails at once instead of after the run.
    """
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise _unwritable(folder, "it is a file, not a folder", "pass a folder path")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise _unwritable(folder, _reason(folder, exc, "the folder")) from None
    return folder


def _reason(folder: Path, exc: OSError, name: str) -> str:
    """Why nothing can be written in ``folder`` (called ``name`` in the message)."""
    why = (exc.strerror or str(exc)).lower()  # "permission denied", "read-only file system"
    for parent in (folder, *folder.parents):  # the nearest existing one says more than errno
        if parent.exists():
            if not parent.is_dir():
                return f"{parent} is a file, not a folder"
            break
    if not folder.is_dir():
        return f"{name} cannot be created ({why})"
    return why


def _unwritable(path: Path, reason: str, fix: str = "") -> InputError:
    fix = fix or "pass a path in a folder you can write to (a missing folder is created)"
    return InputError(f"cannot write {path}: {reason}; {fix}")


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
        if item.note:  # what time has changed since it was said, as the prompt tells it
            lines.append(f"    now: {item.note}")
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
