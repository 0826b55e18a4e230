"""Background jobs: in process on SQLite, procrastinate jobs run by ``logicmem worker`` on
PostgreSQL (``logicmem.service.queue``).

The PostgreSQL tests use a schema of the session's server each; the worker runs either in
this process (``run_worker(..., wait=False)``) or as a real subprocess
(``python -m logicmem.service.queue worker``), one of which is killed with SIGKILL in the
middle of a job. Every subprocess is killed and reaped before its test ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from kit import HashEmbedder
from pg import Backend, open_backend

from logicmem import Memory
from logicmem.service import queue
from logicmem.service.app import create_app
from logicmem.service.jobs import InProcessJobs
from logicmem.service.keys import KeyRing

TESTS = Path(__file__).resolve().parents[1]
SRC = TESTS.parent / "src"
# No LLM: the rule extractor, and rules left unvalidated (no scoring LLM). Visibility
# indexing (a write hook unrelated to jobs) is off: its first use in a process trains a
# classifier over every prototype, 5-120 s, which only slows these tests down.
CONFIG: dict[str, Any] = {
    "llm": {"provider": "none"},
    "rulemem": {"rpc_provider": "none"},
    "visibility": {"enabled": False},
}
FAST = ["--heartbeat", "0.5", "--stalled-after", "3", "--poll", "0.5"]
SAYS = [
    "My daughter Mia plays the violin every Sunday.",
    "I am allergic to peanuts.",
    "I live in Lyon with my wife Clara.",
]

# A worker whose embedder is the tests' hash embedder: with LM_SLOW_MARKER set, its first
# embedding (inside a job, after the job claimed the user's turns) touches the marker and
# then hangs, so the test can kill it at a known point.
WORKER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path

    sys.path.insert(0, os.environ["LM_TESTS"])
    from kit import HashEmbedder
    from logicmem.models.embed.base import EMBEDDERS

    class SlowHashEmbedder(HashEmbedder):
        def _embed(self, texts):
            marker = os.environ.get("LM_SLOW_MARKER")
            if marker:
                Path(marker).touch()
                time.sleep(600)
            return super()._embed(texts)

    EMBEDDERS.register("hash", SlowHashEmbedder)
    from logicmem.service.queue import main

    sys.exit(main(sys.argv[1:]))
    """
)


def _memory(store: str | Path, **extra: Any) -> Memory:
    return Memory(store, embedder=HashEmbedder(), config={**CONFIG, **extra})


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    path = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.update(PYTHONPATH=path, HF_HUB_OFFLINE="1", LOGICMEM_LLM="none", LM_TESTS=str(TESTS))
    env.update(LOGICMEM_VISIBILITY_ENABLED="false", LOGICMEM_RULEMEM_RPC_PROVIDER="none")
    env.update(extra)
    return env


class Procs:
    """Subprocesses of a test, killed and reaped at its end whatever happens."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[str]] = []

    def start(self, argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[str]:
        with log.open("w") as out:
            proc = subprocess.Popen(
                argv, env=env, stdout=out, stderr=subprocess.STDOUT, text=True, cwd=TESTS
            )
        self.procs.append(proc)
        return proc

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=30)


@pytest.fixture
def procs() -> Iterator[Procs]:
    running = Procs()
    yield running
    running.close()


@pytest.fixture
def pg(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    with open_backend(request, "postgresql", tmp_path) as backend:
        yield backend


def _jobs_rows(pg: Backend, url: str) -> list[tuple[Any, ...]]:
    with pg.raw(url) as execute:
        return execute(
            "SELECT task_name, status::text, attempts, lock, queueing_lock "
            "FROM procrastinate_jobs ORDER BY id"
        )


def _texts(mem: Memory, user: str) -> list[str]:
    return sorted(m.text for m in mem.get_all(user_id=user))


# -- SQLite: in process -----------------------------------------------------------------
def test_sqlite_jobs_run_in_the_service_process(tmp_path: Path) -> None:
    mem = _memory(tmp_path / "svc.db")
    try:
        assert isinstance(queue.build_jobs(mem), InProcessJobs)
        key = KeyRing(mem.store).create("t")[1]
        auth = {"Authorization": f"Bearer {key}"}
        with TestClient(create_app(mem)) as client:
            jobs = client.app.state.jobs  # type: ignore[attr-defined]
            assert isinstance(jobs, InProcessJobs)
            r = client.post(
                "/v1/users/ria/memories", json={"text": SAYS[0], "background": True}, headers=auth
            )
            assert r.status_code == 201, r.text
            assert r.json()["queued"] is True
            assert jobs.wait(60)
            stats = client.get("/v1/stats", headers=auth).json()
            assert stats["jobs"]["kind"] == "in-process"
            assert stats["jobs"]["succeeded"] == 1 and stats["jobs"]["failed"] == 0
            listed = client.get("/v1/users/ria/memories", headers=auth).json()
            assert any("violin" in m["text"] for m in listed["memories"]), listed
        assert mem.store.pending_turns() == 0
    finally:
        mem.close()


# -- PostgreSQL: the queue --------------------------------------------------------------
@pytest.mark.postgresql
def test_queue_lives_in_the_store_schema_and_dedupes_per_user(pg: Backend) -> None:
    url, other_url = pg.url("a"), pg.url("b")
    mem, other = _memory(url), _memory(other_url)
    conninfo, schema = queue._target(mem)
    assert schema == pg.schema(url)
    # Service workers starting at once: one creates the tables, the others wait and see them.
    created: list[bool] = []
    threads = [
        threading.Thread(target=lambda: created.append(queue.ensure_schema(conninfo, schema)))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(created) == [False, False, False, True]
    jobs = queue.build_jobs(mem)
    others = queue.build_jobs(other)
    try:
        assert isinstance(jobs, queue.QueueJobs) and jobs.kind == "procrastinate"
        with pg.raw(url) as execute:
            where = execute(
                "SELECT table_schema FROM information_schema.tables "
                "WHERE table_name = 'procrastinate_jobs' ORDER BY 1"
            )
        assert sorted(r[0] for r in where) == sorted([pg.schema(url), pg.schema(other_url)])
        assert mem.add(SAYS[0], user_id="kim", defer=True).turns
        jobs.enqueue("extract", "kim")
        assert jobs.counts() == {"queued": 1, "running": 0, "succeeded": 0, "failed": 0}
        jobs.enqueue("extract", "kim")  # the queueing lock: still one
        jobs.enqueue("consolidate", "kim")
        jobs.enqueue("extract", "lou")
        assert jobs.counts()["queued"] == 3
        assert others.counts()["queued"] == 0  # another schema, another queue
        assert [r[1:] for r in _jobs_rows(pg, url)] == [
            ("todo", 0, "user:kim", "extract:kim"),
            ("todo", 0, "user:kim", "consolidate:kim"),
            ("todo", 0, "user:lou", "extract:lou"),
        ]
        with pytest.raises(ValueError):
            jobs.enqueue("nap", "kim")
    finally:
        jobs.close()
        others.close()
        mem.close()
        other.close()


@pytest.mark.postgresql
def test_service_on_postgresql_enqueues_and_a_worker_runs_the_job(pg: Backend) -> None:
    url = pg.url()
    mem = _memory(url)
    key = KeyRing(mem.store).create("t")[1]
    auth = {"Authorization": f"Bearer {key}"}
    try:
        with TestClient(create_app(mem)) as client:
            assert isinstance(client.app.state.jobs, queue.QueueJobs)  # type: ignore[attr-defined]
            for text in SAYS[:2]:
                r = client.post(
                    "/v1/users/ria/memories", json={"text": text, "background": True}, headers=auth
                )
                assert r.status_code == 201 and r.json()["queued"] is True, r.text
            stats = client.get("/v1/stats", headers=auth).json()["jobs"]
            assert stats == {
                "kind": "procrastinate",
                "queued": 1,
                "running": 0,
                "succeeded": 0,
                "failed": 0,
            }
            assert "logicmem_jobs_queued 1.0" in client.get("/metrics").text
            assert mem.store.pending_turns() == 2  # the service does not run jobs itself
            counts = queue.run_worker(mem, wait=False, install_signal_handlers=False)
            assert counts == {"queued": 0, "running": 0, "succeeded": 1, "failed": 0}
            stats = client.get("/v1/stats", headers=auth).json()["jobs"]
            assert stats["succeeded"] == 1 and stats["queued"] == 0
            assert "logicmem_jobs_queued 0.0" in client.get("/metrics").text
            listed = client.get("/v1/users/ria/memories", headers=auth).json()["memories"]
            assert any("violin" in m["text"] for m in listed)
            assert any("peanuts" in m["text"] for m in listed)
        client.app.state.jobs.close()  # type: ignore[attr-defined]
        assert mem.store.pending_turns() == 0
    finally:
        mem.close()


@pytest.mark.postgresql
@pytest.mark.slow
def test_worker_subprocess_extracts_the_pending_turns(
    pg: Backend, minilm_embedder: Any, procs: Procs, tmp_path: Path
) -> None:
    url = pg.url()
    # The store is bound to the embedder of its first write: MiniLM, the worker's default.
    mem = Memory(url, embedder=minilm_embedder, config=CONFIG)
    jobs = queue.build_jobs(mem)
    try:
        assert mem.add(SAYS[0], user_id="kim", defer=True).turns
        jobs.enqueue("extract", "kim")
        jobs.enqueue("extract", "kim")
        assert jobs.counts()["queued"] == 1
        assert mem.store.pending_turns() == 1 and not _texts(mem, "kim")
        argv = [sys.executable, "-m", "logicmem.service.queue", "worker", "--store", url]
        proc = procs.start([*argv, "--until-empty"], _env(), tmp_path / "worker.log")
        rc = proc.wait(timeout=120)
        log = (tmp_path / "worker.log").read_text()
        assert rc == 0, log
        assert "jobs: 0 queued, 0 running, 1 succeeded, 0 failed" in log
        assert jobs.counts() == {"queued": 0, "running": 0, "succeeded": 1, "failed": 0}
        assert mem.store.pending_turns() == 0
        assert any("violin" in t for t in _texts(mem, "kim")), _texts(mem, "kim")
    finally:
        jobs.close()
        mem.close()


@pytest.mark.postgresql
def test_a_job_killed_mid_run_is_retried_and_extracts_once(
    pg: Backend, procs: Procs, tmp_path: Path
) -> None:
    url = pg.url()
    mem = _memory(url)
    jobs = queue.QueueJobs(mem)
    try:
        for i, text in enumerate(SAYS):
            mem.add(text, user_id="kim", session_id=f"s{i}", defer=True)
        jobs.enqueue("extract", "kim")
        marker = tmp_path / "embedding"
        argv = [sys.executable, "-c", WORKER, "worker", "--store", url, *FAST]
        env = _env(LOGICMEM_EMBEDDER="hash")
        first = procs.start(argv, {**env, "LM_SLOW_MARKER": str(marker)}, tmp_path / "w1.log")
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert first.poll() is None, (tmp_path / "w1.log").read_text()
            assert time.monotonic() < deadline, "the first worker never started the job"
            time.sleep(0.05)
        # Mid-job: the job is running and the dead-to-be worker holds the turns' claims.
        assert jobs.counts()["running"] == 1
        with pg.raw(url) as execute:
            claims = execute("SELECT DISTINCT claim FROM turns WHERE pending = 1")
        assert [c[0].split(":")[1] for c in claims] == [str(first.pid)]
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
        assert mem.store.pending_turns() == len(SAYS)

        second = procs.start([*argv, "--until-empty"], env, tmp_path / "w2.log")
        rc = second.wait(timeout=90)
        assert rc == 0, (tmp_path / "w2.log").read_text()
        assert jobs.counts() == {"queued": 0, "running": 0, "succeeded": 1, "failed": 0}
        # One job, run twice: the killed run, and its retry.
        assert [r[:3] for r in _jobs_rows(pg, url)] == [("logicmem.extract", "succeeded", 2)]
        assert mem.store.pending_turns() == 0
        texts = _texts(mem, "kim")
        assert len(texts) == len(set(texts))
        # The same memories as an uninterrupted extraction of the same turns.
        ref = _memory(tmp_path / "ref.db")
        try:
            for i, text in enumerate(SAYS):
                ref.add(text, user_id="kim", session_id=f"s{i}")
            assert texts == _texts(ref, "kim")
        finally:
            ref.close()
    finally:
        jobs.close()
        mem.close()


@pytest.mark.postgresql
def test_a_waiting_worker_runs_new_jobs_and_stops_on_sigterm(
    pg: Backend, procs: Procs, tmp_path: Path
) -> None:
    url = pg.url()
    mem = _memory(url)
    jobs = queue.QueueJobs(mem)
    try:
        mem.add(SAYS[2], user_id="kim", defer=True)  # before the worker: queued at its start
        argv = [sys.executable, "-c", WORKER, "worker", "--store", url, "--concurrency", "2"]
        worker = procs.start([*argv, *FAST], _env(LOGICMEM_EMBEDDER="hash"), tmp_path / "w.log")
        mem.add(SAYS[1], user_id="lou", defer=True)
        jobs.enqueue("extract", "lou")
        deadline = time.monotonic() + 60
        while jobs.counts()["succeeded"] < 2:
            assert worker.poll() is None, (tmp_path / "w.log").read_text()
            assert time.monotonic() < deadline, (tmp_path / "w.log").read_text()
            time.sleep(0.1)
        assert worker.poll() is None  # it waits for more
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0
        assert jobs.counts() == {"queued": 0, "running": 0, "succeeded": 2, "failed": 0}
        assert any("Lyon" in t for t in _texts(mem, "kim"))
        assert any("peanuts" in t for t in _texts(mem, "lou"))
        with pg.raw(url) as execute:  # it left no worker row behind
            assert execute("SELECT count(*) FROM procrastinate_workers") == [(0,)]
    finally:
        jobs.close()
        mem.close()


@pytest.mark.postgresql
def test_consolidate_job_runs_and_is_idempotent(pg: Backend) -> None:
    url = pg.url()
    mem = _memory(url)
    jobs = queue.QueueJobs(mem)

    def built() -> dict[str, int]:
        with pg.raw(url) as execute:
            return {
                t: int(execute(f"SELECT count(*) FROM {t}")[0][0])
                for t in ("root_units", "rulemem_rules", "rulemem_facts", "profile_lines")
            }

    try:
        for i, text in enumerate(SAYS):
            mem.add(text, user_id="kim", session_id=f"s{i}")
        jobs.enqueue("consolidate", "kim")
        done = queue.run_worker(mem, wait=False, install_signal_handlers=False)
        assert done["succeeded"] == 1 and done["failed"] == 0
        first = built()
        assert first["rulemem_facts"] > 0 and first["profile_lines"] > 0
        jobs.enqueue("consolidate", "kim")
        done = queue.run_worker(mem, wait=False, install_signal_handlers=False)
        assert done["succeeded"] == 2 and done["failed"] == 0
        assert built() == first
    finally:
        jobs.close()
        mem.close()


@pytest.mark.postgresql
def test_a_failing_job_is_retried_a_bounded_number_of_times(
    pg: Backend, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    url = pg.url()
    mem = _memory(url)
    calls: list[tuple[str, str]] = []

    def broken(memory: Memory, task: str, user_id: str) -> dict[str, Any]:
        calls.append((task, user_id))
        raise RuntimeError("the LLM server is down")

    monkeypatch.setattr(queue, "run_task", broken)
    monkeypatch.setattr(queue, "RETRY_WAIT_S", 0)
    monkeypatch.setattr(queue, "RETRY_STEP_S", 0)
    jobs = queue.QueueJobs(mem)
    try:
        jobs.enqueue("extract", "kim")
        done = queue.run_worker(mem, wait=False, install_signal_handlers=False, poll_s=0.2)
        assert done == {"queued": 0, "running": 0, "succeeded": 0, "failed": 1}
        assert calls == [("extract", "kim")] * (1 + queue.RETRIES)
        assert [r[1:3] for r in _jobs_rows(pg, url)] == [("failed", 1 + queue.RETRIES)]
        assert "the LLM server is down" in caplog.text
    finally:
        jobs.close()
        mem.close()


@pytest.mark.postgresql
def test_worker_queues_extraction_for_pending_turns_without_a_job(pg: Backend) -> None:
    url = pg.url()
    mem = _memory(url, extract={"resume_pending": False})
    try:
        mem.add(SAYS[1], user_id="lou", defer=True)  # e.g. the service died before enqueueing
        done = queue.run_worker(mem, wait=False, install_signal_handlers=False)
        assert done == {"queued": 0, "running": 0, "succeeded": 1, "failed": 0}
        assert mem.store.pending_turns() == 0
        assert any("peanuts" in t for t in _texts(mem, "lou"))
    finally:
        mem.close()


def test_worker_refuses_a_sqlite_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert queue.main(["worker", "--store", str(tmp_path / "w.db"), "--until-empty"]) == 2
    assert "PostgreSQL" in capsys.readouterr().err
