"""kill -9 of a real ingest and several writer processes on one store (real embedder)."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

TOPICS = [
    "I take {n} mg of vitamin D with breakfast.",
    "My neighbour's dog is called Biscuit number {n}.",
    "I booked the dentist for the {n}th of the month.",
    "We planted {n} tulip bulbs along the fence.",
    "I swim {n} lengths at the pool on Fridays.",
]


def _history(path: Path, sessions: int) -> None:
    with path.open("w") as out:
        for s in range(sessions):
            for t, topic in enumerate(TOPICS):
                row = {
                    "conversation": "c",
                    "session": f"s{s}",
                    "turn": f"s{s}:{t}",
                    "speaker": "ana",
                    "text": topic.format(n=s * 10 + t + 2),
                    "time": f"2024-01-{s + 1:02d}",
                }
                out.write(json.dumps(row) + "\n")


def _ingest(store: Path, history: Path) -> list[str]:
    return [
        sys.executable, "-m", "logicmem.cli.main", "ingest", "--format", "jsonl", str(history),
        "--user", "ana", "--store", str(store),
    ]  # fmt: skip


def _env() -> dict[str, str]:
    return {**os.environ, "LOGICMEM_LLM": "none", "LOGICMEM_EMBEDDER": "minilm"}


def _texts(store: Path) -> list[str]:
    with sqlite3.connect(store) as conn:
        rows = conn.execute("SELECT text FROM memories WHERE status = 'active'").fetchall()
    return sorted(r[0] for r in rows)


def _turns(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(store, timeout=10) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM turns").fetchone()[0])
    except sqlite3.OperationalError:
        return 0  # not created yet


def test_kill_9_during_ingest_then_rerun_equals_a_clean_ingest(tmp_path: Path) -> None:
    history = tmp_path / "h.jsonl"
    _history(history, sessions=6)
    clean = tmp_path / "clean.db"
    subprocess.run(_ingest(clean, history), env=_env(), check=True, capture_output=True)
    expected = _texts(clean)
    # Numbers differ, so nothing merges; doses and lengths are updates of one slot.
    assert len(expected) >= 6 * 2
    for n, after_turns in enumerate((3, 21)):
        store = tmp_path / f"killed-{n}.db"
        proc = subprocess.Popen(
            _ingest(store, history), env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 120
        while _turns(store) < after_turns and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        subprocess.run(_ingest(store, history), env=_env(), check=True, capture_output=True)
        assert _texts(store) == expected, f"kill after {after_turns} turns"


def _write(args: tuple[str, int, int]) -> int:
    path, writer, facts = args
    from logicmem import Memory

    errors = 0
    # The visibility index is off: this is about the store and the merge rule.
    config = {"llm": {"provider": "none"}, "visibility": {"enabled": False}}
    with Memory(path, config=config) as mem:
        for i in range(facts):
            try:
                mem.add(f"I noted fact number {i} from writer {writer}.", user_id="shared")
            except Exception as exc:
                print(f"writer {writer}: {type(exc).__name__}: {exc}", file=sys.stderr)
                errors += 1
    return errors


def test_concurrent_writers_keep_every_distinct_fact(tmp_path: Path) -> None:
    from logicmem import Memory

    store = tmp_path / "shared.db"
    Memory(store, config={"llm": {"provider": "none"}}).close()
    writers, facts = 3, 30
    with multiprocessing.get_context("spawn").Pool(writers) as pool:
        errors = pool.map(_write, [(str(store), w, facts) for w in range(writers)])
    assert sum(errors) == 0
    assert _turns(store) == writers * facts
    texts = "\n".join(_texts(store))
    missing = [
        (w, i) for w in range(writers) for i in range(facts) if f"{i} from writer {w}." not in texts
    ]
    assert missing == []
