"""Background work of the service: extraction of deferred adds, and consolidation.

Two tasks, both idempotent and resumable by construction, whatever runs them:

- ``extract``: ``Memory.resume(user_id)``, which claims the user's pending turns (those a
  deferred add committed, or a killed process left) and extracts them, then the memories
  whose write hooks have not run (a killed writer's, or those a background reindex
  marked) and indexes them; work another live process holds is skipped, a dead one's is
  taken over.
- ``consolidate``: ``Memory.consolidate(user_id)``; every consolidator keeps a watermark,
  so a second run costs only what is new, and a run cut short is redone from it.

``InProcessJobs`` (the SQLite default) runs them on one background thread of the service
process; the PostgreSQL queue (``logicmem.service.queue``) runs them in ``logicmem worker``
processes. A job for a user that is already queued is not queued twice.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

from logicmem.memory import Memory
from logicmem.store.sql import SQLStore

log = logging.getLogger("logicmem.service")
TASKS = ("extract", "consolidate")


def run_task(memory: Memory, task: str, user_id: str) -> dict[str, Any]:
    """Run one job for a (store-level, tenant-prefixed) user id; returns what it did."""
    if task == "extract":
        result = memory.resume(user_id=user_id)
        return {"turns": len(result.turns), "added": len(result.added), "failures": result.failures}
    if task == "consolidate":
        return memory.consolidate(user_id=user_id)
    raise ValueError(f"unknown task {task!r}: one of {', '.join(TASKS)}")


def pending_users(memory: Memory) -> list[str]:
    """The (store-level) user ids with turns stored but not yet extracted."""
    store = memory.store
    assert isinstance(store, SQLStore)
    with store.errors():
        rows = store.db.execute(
            "SELECT DISTINCT user_id FROM turns WHERE pending = 1 ORDER BY user_id"
        ).fetchall()
    return [r["user_id"] for r in rows]


class Jobs(Protocol):
    kind: str

    def enqueue(self, task: str, user_id: str) -> None: ...

    def counts(self) -> dict[str, int]: ...

    def close(self) -> None: ...


class InProcessJobs:
    """Jobs on one thread of this process (queued jobs are lost with the process, but not
    their work: the turns stay pending and the next start, add or job resumes them)."""

    kind = "in-process"

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="logicmem-job")
        self._lock = threading.Lock()
        self._queued: set[tuple[str, str]] = set()
        self._counts: Counter[str] = Counter()
        self.on_done: list[Any] = []  # callbacks (task, status, seconds), for metrics

    def enqueue(self, task: str, user_id: str) -> None:
        if task not in TASKS:
            raise ValueError(f"unknown task {task!r}")
        key = (task, user_id)
        with self._lock:
            if key in self._queued:
                return
            self._queued.add(key)
            self._counts["queued"] += 1
        future: Future[Any] = self._pool.submit(self._run, task, user_id)
        future.add_done_callback(lambda _: None)

    def _run(self, task: str, user_id: str) -> None:
        import time

        with self._lock:
            self._queued.discard((task, user_id))
            self._counts["queued"] -= 1
            self._counts["running"] += 1
        started = time.perf_counter()
        status = "succeeded"
        try:
            run_task(self.memory, task, user_id)
        except Exception:  # a job's failure is counted and logged; the work stays pending
            status = "failed"
            log.exception("background %s for a user failed", task)
        finally:
            with self._lock:
                self._counts["running"] -= 1
                self._counts[status] += 1
            for callback in self.on_done:
                callback(task, status, time.perf_counter() - started)

    def wait(self, timeout_s: float = 60.0) -> bool:
        """Block until no job is queued or running (tests, shutdown); False on timeout."""
        import time

        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                if not self._counts["queued"] and not self._counts["running"]:
                    return True
            time.sleep(0.02)
        return False

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {k: self._counts[k] for k in ("queued", "running", "succeeded", "failed")}

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=False)
