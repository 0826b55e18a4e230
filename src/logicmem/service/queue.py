"""Which job runner a service uses, and the PostgreSQL job queue (procrastinate).

- SQLite (any store but PostgreSQL): ``InProcessJobs``, one thread of the service process.
- PostgreSQL: ``QueueJobs``, procrastinate jobs in the store's own database and schema
  (its tables, types and functions are created in the schema the store URL names, so two
  stores on one server never share a queue and dropping the schema drops the queue). The
  service only enqueues; ``logicmem worker`` processes (``run_worker``) run the jobs.

A job is ``run_task(memory, task, user_id)`` (``logicmem.service.jobs``), idempotent by
construction. Each job carries two procrastinate locks: a queueing lock per (task, user),
so a user never has two queued jobs of one task, and a lock per user, so no two workers
run one user's jobs at once. A job that raises is retried ``RETRIES`` times (procrastinate's
``RetryStrategy``), then stays ``failed``. A worker killed mid-job stops sending its
heartbeat; every worker, at start and then every heartbeat, re-queues the jobs of workers
silent for ``stalled_s`` seconds (procrastinate's stalled-job retry), and the store's
claims let the new run take over the turns the dead process had claimed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from logicmem.errors import InputError, StoreError
from logicmem.memory import Memory
from logicmem.service.jobs import TASKS, InProcessJobs, Jobs, pending_users, run_task
from logicmem.store.url import redact

if TYPE_CHECKING:
    from procrastinate import App

log = logging.getLogger("logicmem.worker")

QUEUE = "logicmem"  # the procrastinate queue of every logicmem job
TASK_NAMES = {task: f"logicmem.{task}" for task in TASKS}
RETRIES = 2  # a job that raises runs at most 1 + RETRIES times
RETRY_WAIT_S = 5  # before the first retry; each further one waits RETRY_STEP_S more
RETRY_STEP_S = 10
HEARTBEAT_S = 10.0  # procrastinate's defaults: a heartbeat every 10 s...
STALLED_S = 30.0  # ...and a worker silent for 30 s is dead, its jobs re-queued
POLL_S = 2.0  # a worker looks for jobs this often besides LISTEN/NOTIFY
KEEP_HOURS = 72  # finished jobs are kept this long (counts), then deleted by the workers
_SCHEMA_LOCK = "logicmem-procrastinate-schema:"  # advisory lock key prefix (hashtext)
_COUNTS = {"queued": "todo", "running": "doing", "succeeded": "succeeded", "failed": "failed"}


def build_jobs(memory: Memory) -> Jobs:
    """The service's jobs: the procrastinate queue on PostgreSQL, in process elsewhere."""
    if memory.store.backend != "postgresql":
        return InProcessJobs(memory)
    return QueueJobs(memory)


# -- where the queue lives ----------------------------------------------------------------
def _target(memory: Memory) -> tuple[str, str | None]:
    """The libpq conninfo and the schema (None: the connection's default) of the store."""
    from logicmem.store.postgres import PostgresStore, _split_url

    store = memory.store
    if not isinstance(store, PostgresStore):
        raise InputError(
            f"the job queue needs a PostgreSQL store, not {store.backend}: on SQLite the "
            "service runs its jobs in process"
        )
    conninfo, schema, _ = _split_url(store.url)
    return conninfo, schema


def ensure_schema(conninfo: str, schema: str | None) -> bool:
    """Create procrastinate's tables in ``schema`` unless they are there; True if created.

    One transaction under an advisory lock per schema, so service workers and queue
    workers starting at once neither race nor see half a schema."""
    import procrastinate
    import psycopg
    from procrastinate.schema import SchemaManager
    from psycopg import sql as pgsql

    marker = f"logicmem: procrastinate {procrastinate.__version__}"
    try:
        with (
            psycopg.connect(conninfo, autocommit=True, connect_timeout=30) as conn,
            conn.transaction(),
        ):
            if schema:
                conn.execute(
                    pgsql.SQL("SET LOCAL search_path TO {}").format(pgsql.Identifier(schema))
                )
            conn.execute(
                "SELECT pg_advisory_xact_lock(hashtext(%s || current_schema()))",
                (_SCHEMA_LOCK,),
            )
            row = conn.execute("SELECT to_regclass('procrastinate_jobs')::text").fetchone()
            if row is None or row[0] is None:
                conn.execute(SchemaManager.get_schema().encode())
                conn.execute(
                    pgsql.SQL("COMMENT ON TABLE procrastinate_jobs IS {}").format(
                        pgsql.Literal(marker)
                    )
                )
                return True
            found = conn.execute(
                "SELECT obj_description('procrastinate_jobs'::regclass, 'pg_class')"
            ).fetchone()
        if found is not None and found[0] not in (None, marker):
            log.warning(
                "the job queue's tables were made by %s, this is %s: apply procrastinate's "
                "migrations to the store's schema (`procrastinate schema --migrate`)",
                found[0],
                marker,
            )
        return False
    except psycopg.Error as exc:
        raise StoreError(redact(f"cannot set up the job queue: {exc}".strip())) from exc


def _set_path(schema: str | None) -> Any:
    from psycopg import sql as pgsql

    if not schema:
        return None
    return pgsql.SQL("SET search_path TO {}").format(pgsql.Identifier(schema))


def build_app(
    conninfo: str,
    schema: str | None,
    *,
    memory: Memory | None = None,
    asynchronous: bool = False,
    max_size: int = 4,
) -> App:
    """A procrastinate App on the store's database whose connections all use the store's
    schema, with the logicmem tasks (they run ``run_task`` on ``memory``; an App without
    a memory only enqueues and counts)."""
    from procrastinate import App, PsycopgConnector, RetryStrategy, SyncPsycopgConnector

    statement = _set_path(schema)
    pool: dict[str, Any] = {"conninfo": conninfo, "min_size": 1, "max_size": max_size}
    if asynchronous:

        async def aconfigure(conn: Any) -> None:
            if statement is not None:
                await conn.execute(statement)
                await conn.commit()

        connector: Any = PsycopgConnector(**pool, configure=aconfigure)
    else:

        def configure(conn: Any) -> None:
            if statement is not None:
                conn.execute(statement)
                conn.commit()

        connector = SyncPsycopgConnector(**pool, configure=configure)
    app = App(connector=connector)
    retry = RetryStrategy(max_attempts=RETRIES, wait=RETRY_WAIT_S, linear_wait=RETRY_STEP_S)
    for task in TASKS:
        app.task(name=TASK_NAMES[task], queue=QUEUE, retry=retry)(_job(memory, task))
    return app


def _job(memory: Memory | None, task: str) -> Any:
    def job(user_id: str) -> dict[str, Any]:
        if memory is None:
            raise RuntimeError("this process only enqueues jobs: `logicmem worker` runs them")
        return run_task(memory, task, user_id)

    job.__name__ = f"logicmem_{task}"
    return job


def _locks(task: str, user_id: str) -> tuple[str, str]:
    """The job's lock (one job of a user runs at a time) and queueing lock (one job of a
    task and user is queued at a time)."""
    return f"user:{user_id}", f"{task}:{user_id}"


def _counts(rows: Any) -> dict[str, int]:
    total = {status: 0 for status in _COUNTS.values()}
    for row in rows:
        for status in total:
            total[status] += int(row.get(status, 0))
    return {name: total[status] for name, status in _COUNTS.items()}


class QueueJobs:
    """Jobs as procrastinate jobs in the store's schema; ``logicmem worker`` runs them."""

    kind = "procrastinate"

    def __init__(self, memory: Memory) -> None:
        from procrastinate import exceptions

        self._exceptions = exceptions
        conninfo, self.schema = _target(memory)
        ensure_schema(conninfo, self.schema)
        self.app = build_app(conninfo, self.schema)
        try:
            self.app.open()
        except exceptions.ConnectorException as exc:
            raise StoreError(redact(f"cannot open the job queue: {exc.__cause__ or exc}")) from exc

    def enqueue(self, task: str, user_id: str) -> None:
        """Queue ``task`` for the user, unless one is queued already (its queueing lock)."""
        if task not in TASKS:
            raise ValueError(f"unknown task {task!r}")
        lock, queueing_lock = _locks(task, user_id)
        deferrer = self.app.configure_task(TASK_NAMES[task], lock=lock, queueing_lock=queueing_lock)
        try:
            deferrer.defer(user_id=user_id)
        except self._exceptions.AlreadyEnqueued:
            return  # the queued job will see this work too
        except self._exceptions.ConnectorException as exc:
            raise StoreError(
                redact(f"cannot enqueue a {task} job: {exc.__cause__ or exc}")
            ) from exc

    def counts(self) -> dict[str, int]:
        """Jobs in procrastinate's table by status: todo (queued), doing (running),
        succeeded and failed (finished jobs are kept ``KEEP_HOURS``)."""
        try:
            return _counts(self.app.job_manager.list_queues(queue=QUEUE))
        except self._exceptions.ConnectorException as exc:
            raise StoreError(redact(f"cannot read the job queue: {exc.__cause__ or exc}")) from exc

    def close(self) -> None:
        self.app.close()


# -- the worker ---------------------------------------------------------------------------
async def _recover(app: App, stalled_s: float) -> int:
    """Re-queue the jobs of workers silent for ``stalled_s`` (killed, or cut off); a job
    already re-run ``RETRIES`` times fails instead. Returns how many were re-queued."""
    from procrastinate import exceptions
    from procrastinate.jobs import Status

    manager = app.job_manager
    await manager.prune_stalled_workers(stalled_s)
    requeued = 0
    for job in await manager.get_stalled_jobs(queue=QUEUE, seconds_since_heartbeat=stalled_s):
        if job.attempts >= RETRIES:
            log.error("job %s stalled %d times: it failed", job.id, job.attempts + 1)
            await manager.finish_job(job, status=Status.FAILED, delete_job=False)
            continue
        try:
            await manager.retry_job(job)
            requeued += 1
            log.warning("job %s of a dead worker is queued again", job.id)
        except exceptions.UniqueViolation:
            # Another job of this task and user is queued: it does this job's work.
            log.info("job %s of a dead worker is superseded by a queued job", job.id)
            await manager.finish_job(job, status=Status.ABORTED, delete_job=False)
    return requeued


async def _enqueue_orphans(app: App, memory: Memory) -> int:
    """Queue an extract job for each user with pending turns and no extract job queued or
    running (turns a killed service left before it could enqueue, or whose write died)."""
    from procrastinate import exceptions

    users = await asyncio.to_thread(pending_users, memory)
    if not users:
        return 0
    jobs = await app.connector.execute_query_all_async(
        "SELECT queueing_lock FROM procrastinate_jobs WHERE queue_name = %(queue)s "
        "AND task_name = %(task)s AND status IN ('todo', 'doing')",
        queue=QUEUE,
        task=TASK_NAMES["extract"],
    )
    covered = {r["queueing_lock"] for r in jobs}
    queued = 0
    for user_id in users:
        lock, queueing_lock = _locks("extract", user_id)
        if queueing_lock in covered:
            continue
        deferrer = app.configure_task(TASK_NAMES["extract"], lock=lock, queueing_lock=queueing_lock)
        with contextlib.suppress(exceptions.AlreadyEnqueued):
            await deferrer.defer_async(user_id=user_id)
            queued += 1
    return queued


async def _busy(app: App) -> int:
    counts = _counts(await app.job_manager.list_queues_async(queue=QUEUE))
    return counts["queued"] + counts["running"]


async def run_worker_async(
    memory: Memory,
    *,
    concurrency: int = 1,
    wait: bool = True,
    heartbeat_s: float = HEARTBEAT_S,
    stalled_s: float = STALLED_S,
    poll_s: float = POLL_S,
    install_signal_handlers: bool = True,
) -> dict[str, int]:
    """``run_worker`` on the running event loop."""
    if concurrency < 1:
        raise InputError(f"--concurrency must be at least 1, not {concurrency}")
    if stalled_s <= heartbeat_s:
        raise InputError("the stalled timeout must be longer than the heartbeat interval")
    conninfo, schema = _target(memory)
    await asyncio.to_thread(ensure_schema, conninfo, schema)
    app = build_app(conninfo, schema, memory=memory, asynchronous=True, max_size=concurrency + 4)
    async with app.open_async():
        await _recover(app, stalled_s)
        orphans = await _enqueue_orphans(app, memory)
        if orphans:
            log.info("queued extraction for %d user(s) with pending turns", orphans)
        worker = asyncio.create_task(
            app.run_worker_async(
                queues=[QUEUE],
                name="logicmem",
                concurrency=concurrency,
                wait=True,
                fetch_job_polling_interval=poll_s,
                update_heartbeat_interval=heartbeat_s,
                stalled_worker_timeout=stalled_s,
                install_signal_handlers=install_signal_handlers,
                delete_jobs="never",
            ),
            name="procrastinate worker",
        )
        tick = heartbeat_s if wait else min(heartbeat_s, poll_s, 0.5)
        last_recover = time.monotonic()
        last_prune = last_recover - 600  # old finished jobs go at start, then every 10 min
        try:
            while True:
                done, _ = await asyncio.wait({worker}, timeout=tick)
                if done:
                    worker.result()
                    break
                now = time.monotonic()
                try:
                    if now - last_recover >= heartbeat_s:
                        last_recover = now
                        await _recover(app, stalled_s)
                    if now - last_prune >= 600:
                        last_prune = now
                        await app.job_manager.delete_old_jobs(
                            nb_hours=KEEP_HOURS,
                            queue=QUEUE,
                            include_failed=True,
                            include_cancelled=True,
                            include_aborted=True,
                        )
                    if not wait and not await _busy(app):
                        break
                except Exception:  # upkeep failing (a lost connection) must not stop jobs
                    log.exception("job queue upkeep failed; retrying")
        finally:
            if not worker.done():
                worker.cancel()  # a graceful stop: running jobs finish first
                with contextlib.suppress(asyncio.CancelledError):
                    await worker
        return _counts(await app.job_manager.list_queues_async(queue=QUEUE))


def run_worker(
    memory: Memory,
    *,
    concurrency: int = 1,
    wait: bool = True,
    heartbeat_s: float = HEARTBEAT_S,
    stalled_s: float = STALLED_S,
    poll_s: float = POLL_S,
    install_signal_handlers: bool = True,
) -> dict[str, int]:
    """Run the queue's jobs on ``memory`` (a PostgreSQL store) until stopped (SIGINT,
    SIGTERM: running jobs finish first), or with ``wait=False`` until no job is queued or
    running (a dead worker's jobs are waited for, re-queued and run). At start, jobs of
    dead workers are re-queued, and users with pending turns but no extract job get one.
    ``concurrency`` jobs run at once, each on a thread. Returns the job counts at exit."""
    return asyncio.run(
        run_worker_async(
            memory,
            concurrency=concurrency,
            wait=wait,
            heartbeat_s=heartbeat_s,
            stalled_s=stalled_s,
            poll_s=poll_s,
            install_signal_handlers=install_signal_handlers,
        )
    )


# -- command line -------------------------------------------------------------------------
def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``logicmem worker``."""
    p = sub.add_parser(
        "worker",
        help="run the background jobs (extraction, consolidation) of a PostgreSQL store",
        description="Run the jobs `logicmem serve` queues on a PostgreSQL store: extraction "
        "of background adds, and consolidation. Start as many as you like, on any machine; "
        "a user's jobs run one at a time. SIGINT/SIGTERM stop it once running jobs "
        "finish. On SQLite the service runs its jobs itself.",
    )
    p.add_argument(
        "--store", help="postgresql://... store URL (default: $LOGICMEM_STORE or the config)"
    )
    p.add_argument("--config", help="TOML settings file (default: $LOGICMEM_CONFIG)")
    p.add_argument("--concurrency", type=int, default=1, help="jobs at once (default 1)")
    p.add_argument(
        "--until-empty",
        "--once",
        dest="until_empty",
        action="store_true",
        help="run until no job is queued or running, then exit (tests, cron)",
    )
    p.add_argument(
        "--heartbeat",
        type=float,
        default=HEARTBEAT_S,
        metavar="S",
        help=f"seconds between heartbeats and stalled-job checks (default {HEARTBEAT_S:g})",
    )
    p.add_argument(
        "--stalled-after",
        type=float,
        default=STALLED_S,
        metavar="S",
        help="a worker without a heartbeat this long is dead and its jobs are queued again "
        f"(default {STALLED_S:g})",
    )
    p.add_argument(
        "--poll",
        type=float,
        default=POLL_S,
        metavar="S",
        help=f"seconds between looks for jobs, besides notifications (default {POLL_S:g})",
    )
    p.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    p.set_defaults(handler=worker_command)


def worker_command(args: argparse.Namespace) -> int:
    from logicmem.config import load_settings

    if not logging.getLogger().handlers:
        logging.basicConfig(
            level=args.log_level.upper(),
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
            stream=sys.stderr,
        )
    from logicmem.store.url import parse_store_url

    # Pending turns are left to jobs (each under its user's lock), not resumed at open.
    tree: dict[str, Any] = {"extract": {"resume_pending": False}}
    if args.store:
        tree["store"] = args.store
    settings = load_settings(tree, config_file=args.config)
    if parse_store_url(settings.store).backend != "postgresql":
        raise InputError(
            "logicmem worker runs the jobs of a PostgreSQL store (--store postgresql://...); "
            "on SQLite `logicmem serve` runs its jobs itself"
        )
    memory = Memory(config=settings)
    try:
        counts = run_worker(
            memory,
            concurrency=args.concurrency,
            wait=not args.until_empty,
            heartbeat_s=args.heartbeat,
            stalled_s=args.stalled_after,
            poll_s=args.poll,
        )
    finally:
        memory.close()
    print(
        "jobs: " + ", ".join(f"{n} {name}" for name, n in counts.items()),
        file=sys.stderr,
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m logicmem.service.queue worker ...`` (the same as ``logicmem worker``)."""
    from logicmem.cli.main import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    # Run the imported module's main: procrastinate warns about an App made in __main__.
    from logicmem.service import queue as _queue

    sys.exit(_queue.main())
