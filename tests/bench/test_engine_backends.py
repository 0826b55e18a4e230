"""The bench on PostgreSQL: the same protocol, the same results as on SQLite, and no
schema left behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from pg import PGServer

from logicmem.bench.adapters import inmind
from logicmem.bench.data import load_backgrounds


def _schemas(server: PGServer) -> list[str]:
    with server.connect() as conn:
        rows = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'lmbench%'"
        ).fetchall()
    return [r[0] for r in rows]


@pytest.mark.postgresql
def test_bench_on_postgresql_equals_sqlite(
    make_engine, background: Path, inmind_tasks: Path, request: pytest.FixtureRequest
) -> None:
    server: PGServer = request.getfixturevalue("pg_server")
    convs = load_backgrounds(background, ["1"])
    tasks = inmind.load_tasks(inmind_tasks, None)
    results = {}
    for name, store in (("sqlite", None), ("postgresql", server.uri)):
        with make_engine("bm25,dense,hybrid,context", store=store) as engine:
            assert engine.backend == name
            records = engine.run(inmind.plans(tasks, convs, inmind.Options()))
            stats = list(engine.store_stats)
            if store is not None:
                assert len(_schemas(server)) == 1  # the template, until the engine closes
        results[name] = (
            sorted((str(r.probe), r.method, r.k, r.hit, r.rank, r.items) for r in records),
            stats,
        )
    assert results["postgresql"] == results["sqlite"]
    assert len(results["sqlite"][0]) == 4 * 2 * 2 * 4  # tasks x probes x ks x methods
    assert _schemas(server) == []  # every plan's schema and the template dropped
