"""What is PostgreSQL's own: its URL, its errors, and search through the HNSW index."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
from kit import memory_entry, unit_vector
from pg import Backend, PGServer

from logicmem.errors import StoreError
from logicmem.store import pg_schema
from logicmem.store.postgres import PgVector, PostgresStore
from logicmem.store.url import open_store
from logicmem.types import Scope


def test_an_unreachable_server_is_one_clear_error_without_the_password() -> None:
    with pytest.raises(StoreError) as err:
        open_store("postgresql://ana:s3cret@/nodb?host=/nonexistent-dir")
    text = str(err.value)
    assert "cannot reach PostgreSQL" in text and "start the server" in text
    assert "s3cret" not in text and "ana:***@" in text


@pytest.mark.parametrize(
    ("query", "says"),
    [("schema=bad-name", "not a plain name"), ("pool_size=0", "positive number")],
)
def test_bad_url_options_say_what_to_write(query: str, says: str) -> None:
    with pytest.raises(StoreError, match=says):
        PostgresStore(f"postgresql://u@/db?host=/nonexistent-dir&{query}")


@pytest.fixture
def pg(request: pytest.FixtureRequest, tmp_path) -> Backend:  # type: ignore[no-untyped-def]
    server: PGServer = request.getfixturevalue("pg_server")
    chosen = Backend("postgresql", tmp_path, server)
    request.addfinalizer(chosen.close)
    return chosen


def _fill(store: PostgresStore, user: str, n: int, seed: int) -> list[str]:
    ids = []
    with store.transaction():
        for i in range(n):
            entry = memory_entry(uuid.uuid4().hex, f"{user} fact {i}", user=user)
            store.add_memory(entry, unit_vector(seed * 100_000 + i, 16), {})
            ids.append(entry.id)
    return ids


def _exact(store: PostgresStore, scope: Scope, q: np.ndarray, k: int) -> list[str]:
    ids, matrix = store.vectors(scope)
    return [ids[j] for j in np.argsort(-(matrix @ q))[:k]]


def _plan(store: PostgresStore, scope: Scope) -> str:
    """The plan of the index query, under the store's index settings."""
    query = pg_schema.NEAREST_HNSW.format(dims=16, clause=" AND status = 'active'")
    v = PgVector(unit_vector(5, 16))
    with store.transaction():
        for setting in store.INDEX_SETTINGS:
            store.db.execute(setting.format(ef=40))
        rows = store.db.execute("EXPLAIN " + query, [v, scope.user_id, v, 10]).fetchall()
    return "\n".join(str(next(iter(r.values()))) for r in rows)


@pytest.mark.postgresql
def test_a_large_scope_is_searched_through_the_index_and_matches_exact_search(
    pg: Backend,
) -> None:
    store = open_store(pg.url())
    assert isinstance(store, PostgresStore)
    store.bind_embedder("test:16", 16)
    _fill(store, "ana", 400, 1)
    store.EXACT_MAX = 100  # this store only: ana's 400 memories go through the index
    store.INDEX_SETTINGS = (*PostgresStore.INDEX_SETTINGS, "SET LOCAL enable_sort = off")
    assert "memories_hnsw" in _plan(store, Scope("ana"))
    scope = Scope("ana")
    queries = np.stack([unit_vector(9_000 + i, 16) for i in range(20)])
    got = store.nearest(scope, queries, 10)
    exact = [_exact(store, scope, q, 10) for q in queries]
    recall = np.mean([len(set(g) & set(e)) / 10 for g, e in zip(
        [[m for m, _ in row] for row in got], exact, strict=True)])  # fmt: skip
    assert recall >= 0.95
    for row, q in zip(got, queries, strict=True):  # cosines are the true ones, best first
        cos = [c for _, c in row]
        assert cos == sorted(cos, reverse=True)
        truth = store.cosines(scope, q, [m for m, _ in row])
        assert all(abs(truth[m] - c) < 1e-5 for m, c in row)
    store.close()


@pytest.mark.postgresql
def test_a_small_user_among_large_ones_gets_a_full_answer(pg: Backend) -> None:
    """pgvector filters after the index scan: one user's few rows among many users' rows
    can come back short. The store then answers exactly."""
    store = open_store(pg.url())
    assert isinstance(store, PostgresStore)
    store.bind_embedder("test:16", 16)
    _fill(store, "big", 600, 2)
    small = _fill(store, "small", 30, 3)
    store.EXACT_MAX = 10  # both users through the index,
    # which the planner would skip at this size: make sorting look dear so it takes it.
    # A narrow index scan (20 candidates of 630 rows) leaves few of small's 30 rows.
    store.INDEX_SETTINGS = ("SET LOCAL hnsw.ef_search = 20", "SET LOCAL enable_sort = off")
    assert "memories_hnsw" in _plan(store, Scope("small"))
    q = unit_vector(77, 16)
    got = [m for m, _ in store.nearest(Scope("small"), q[None, :], 10)[0]]
    assert len(got) == 10 and set(got) <= set(small)
    assert got == _exact(store, Scope("small"), q, 10)
    store.close()
