"""Two processes on one store: what one writes, the other's caches never hide.

The reader is a real second process holding the store open across the writer's changes,
so every cache it keeps (the user's vector matrix, keyword statistics, the visibility
keys) is exercised against writes it did not make.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import numpy as np
from pg import Backend

from logicmem.routes.visible.repo import MemoryKey, VisibleRepository
from logicmem.store.url import open_store
from logicmem.types import MemoryEntry, Scope

READER = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from logicmem.routes.visible.repo import VisibleRepository
    from logicmem.store.url import open_store
    from logicmem.types import Scope

    store = open_store(sys.argv[1])
    scope = Scope("ana")
    query = np.zeros(8, dtype=np.float32)
    query[0] = 1.0
    for line in sys.stdin:
        ids, _ = store.vectors(scope)
        near = [m for m, _ in store.nearest(scope, query[None, :], 10)[0]]
        words = [m for m, _ in store.bm25(scope, ["walnut"], 10)]
        keys, _ = VisibleRepository.of(store).memory_keys(scope)
        print(json.dumps({"ids": ids, "near": near, "bm25": words,
                          "keys": sorted(k.key for k in keys)}), flush=True)
    """
)


def _vector(i: int) -> np.ndarray:
    v = np.zeros(8, dtype=np.float32)
    v[i % 8] = 1.0
    return v


def _memory(text: str) -> MemoryEntry:
    return MemoryEntry(
        id=uuid.uuid4().hex, user_id="ana", agent_id=None, run_id=None, text=text, category="x"
    )


class Reader:
    def __init__(self, url: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", READER, url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).parent,
        )

    def read(self) -> dict[str, list[str]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("read\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "the reader process died"
        data: dict[str, list[str]] = json.loads(line)
        return data

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def test_a_second_process_sees_every_write_of_the_first(backend: Backend) -> None:
    url = backend.url()
    writer = open_store(url)
    writer.bind_embedder("test:8", 8)
    first = _memory("Ana keeps bees on the roof.")
    writer.add_memory(first, _vector(1), {})
    reader = Reader(url)
    try:
        seen = reader.read()  # fills the reader's caches
        assert seen["ids"] == [first.id] and seen["bm25"] == []

        nut = _memory("Ana is allergic to walnut.")
        writer.add_memory(nut, _vector(0), {})
        VisibleRepository.of(writer).add_keys(
            "ana", [MemoryKey(nut.id, "baking with nuts", "kb", "nut-allergy")], _vector(0)[None, :]
        )
        seen = reader.read()
        assert seen["ids"] == [first.id, nut.id]  # the stored order, new memory last
        assert seen["near"][0] == nut.id
        assert seen["bm25"] == [nut.id]
        assert seen["keys"] == ["baking with nuts"]

        writer.close_memory(nut.id, until="2030-01-01T00:00:00+00:00", by=None, event="RETRACT",
                            detail={})  # fmt: skip
        seen = reader.read()
        assert seen["ids"] == [first.id] and seen["bm25"] == [] and seen["keys"] == []
        assert nut.id not in seen["near"]

        writer.delete_user("ana")
        assert reader.read() == {"ids": [], "near": [], "bm25": [], "keys": []}
    finally:
        reader.close()
        writer.close()


def test_a_rolled_back_write_leaves_no_cache_behind(backend: Backend) -> None:
    """A cache filled inside a transaction that then fails must not outlive it, even if
    another process's commit later brings the store to the same version number."""
    url = backend.url()
    store = open_store(url)
    store.bind_embedder("test:8", 8)
    kept = _memory("Ana runs on Sundays.")
    store.add_memory(kept, _vector(2), {})
    scope = Scope("ana")
    ghost = _memory("Ana moved to Oslo.")
    try:
        with store.transaction():
            store.add_memory(ghost, _vector(3), {})
            assert store.vectors(scope)[0] == [kept.id, ghost.id]
            raise RuntimeError("the write fails after a read")
    except RuntimeError:
        pass
    assert store.vectors(scope)[0] == [kept.id]
    other = open_store(url)
    late = _memory("Ana plays chess.")
    other.add_memory(late, _vector(4), {})
    other.close()
    assert store.vectors(scope)[0] == [kept.id, late.id]
    assert [m for m, _ in store.bm25(scope, ["oslo"], 5)] == []
    store.close()
