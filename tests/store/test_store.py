"""The core store on every backend (SQLite and PostgreSQL): turns, memories and their
history, keyword and vector retrieval, forgetting a user, embedder binding, transactions.
What only SQLite has (WAL, locking, a file that is not a database) is in test_sqlite.py."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from kit import memory_entry, unit_vector
from pg import Backend

from logicmem.errors import NotFoundError, StoreError
from logicmem.store.base import Store
from logicmem.store.url import open_store
from logicmem.types import Scope, Turn

_vec, _entry = unit_vector, memory_entry


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = open_store(store_url)
    yield s
    s.close()


def test_the_url_opens_the_backend_under_test(store: Store, backend: Backend) -> None:
    assert store.backend == backend.name and store.stats()["backend"] == backend.name
    assert not store.read_only


def test_turns_are_idempotent_by_id(store: Store) -> None:
    t = Turn(user_id="u", session_id="s1", turn_id="a", speaker="u", text="hello there")
    assert len(store.add_turns([t])) == 1
    dup = Turn(user_id="u", session_id="s1", turn_id="a", speaker="u", text="hello there")
    assert store.add_turns([dup]) == []
    assert [x.text for x in store.get_turns(Scope("u"))] == ["hello there"]


def test_turns_by_id_in_the_order_said_and_only_the_users(store: Store) -> None:
    said = [Turn(user_id="u", session_id="s1", turn_id=f"t{i}", speaker="u", text=f"line {i}")
            for i in range(3)]  # fmt: skip
    store.add_turns(said)
    store.add_turns([Turn(user_id="v", session_id="s1", turn_id="t0", speaker="v", text="x")])
    found = store.get_turns(Scope("u"), turn_ids=["t2", "t0", "t2", "nope"])
    assert [(t.user_id, t.turn_id) for t in found] == [("u", "t0"), ("u", "t2")]
    assert store.get_turns(Scope("u"), turn_ids=[]) == []
    many = [f"x{i}" for i in range(600)] + ["t1"] + [f"y{i}" for i in range(600)]  # > one chunk
    assert [t.turn_id for t in store.get_turns(Scope("u"), turn_ids=many)] == ["t1"]


def test_the_turn_before_is_of_the_same_session_and_scope(store: Store) -> None:
    said = lambda turn_id, session="s1", **scope: Turn(  # noqa: E731
        user_id="u", session_id=session, turn_id=turn_id, speaker="u", text=turn_id, **scope
    )
    store.add_turns([said("a"), said("b", "s2"), said("c", agent_id="coach"), said("d")])
    store.add_turns([said("e", agent_id="chef")])
    store.add_turns([Turn(user_id="v", session_id="s1", turn_id="f", speaker="v", text="f")])
    by_id = {t.turn_id: t for t in store.get_turns(Scope("u"))}
    before = lambda turn_id: store.turn_before(by_id[turn_id])  # noqa: E731
    assert before("d").turn_id == "c"  # the session's, any agent's: not s2's
    assert before("a") is None and before("b") is None
    assert before("c") is None and before("e") is None  # an agent's scope: its own turns
    [f] = store.get_turns(Scope("v"))
    assert store.turn_before(f) is None  # not another user's
    assert Store.turn_before(store, by_id["d"]).turn_id == "c"  # the portable default


def test_memory_lifecycle_writes_history(store: Store) -> None:
    store.add_memory(_entry("m1", "Ana likes tea"), _vec(1), {"by": "test"})
    store.update_memory("m1", event="UPDATE", text="Ana likes green tea", vector=_vec(2))
    store.add_memory(_entry("m2", "Ana lives in Porto"), _vec(3), {})
    store.supersede("m1", "m2", {"why": "test"})
    events = [row.event for row in store.history("m1")]
    assert events == ["ADD", "UPDATE", "SUPERSEDE"]
    assert store.get_memory("m1").status == "superseded"  # type: ignore[union-attr]
    assert [m.id for m in store.list_memories(Scope("u"))] == ["m2"]
    assert len(store.list_memories(Scope("u"), include_superseded=True)) == 2
    store.delete_memory("m2")
    assert store.history("m2")[-1].event == "DELETE"
    with pytest.raises(NotFoundError):
        store.delete_memory("m2")


def test_bm25_and_vectors_see_only_active_memories_of_the_scope(store: Store) -> None:
    store.add_memory(_entry("a", "Ana adopted a kitten"), _vec(1), {})
    store.add_memory(_entry("b", "Ana went to the adoption agency"), _vec(2), {})
    store.add_memory(_entry("c", "Bo adopted a dog", user="bo"), _vec(3), {})
    found = dict(store.bm25(Scope("u"), ["adopted"], 10))
    assert set(found) == {"a", "b"}  # Porter stemming: adopted ~ adoption; Bo's is not in scope
    assert [mid for mid, _ in store.bm25(Scope("u"), ["kitten"], 10)] == ["a"]
    ids, matrix = store.vectors(Scope("u"))
    assert sorted(ids) == ["a", "b"] and matrix.shape == (2, 8)
    store.supersede("a", "b", {})
    assert store.vectors(Scope("u"))[0] == ["b"]  # the cache was invalidated by the write


def test_vectors_come_in_the_order_memories_were_stored(store: Store) -> None:
    # The visible route reads a later row as said more recently (its tie-break).
    for i, mid in enumerate(["z", "a", "m", "b"]):
        store.add_memory(_entry(mid, f"fact {mid}"), _vec(i), {})
    store.supersede("m", "b", {})
    assert store.vectors(Scope("u"))[0] == ["z", "a", "b"]


def test_delete_user_removes_every_trace(store: Store) -> None:
    store.add_turns([Turn(user_id="u", session_id="s", turn_id="1", speaker="u", text="hi")])
    store.add_memory(_entry("a", "Ana adopted a kitten"), _vec(1), {})
    store.record_event("extraction_failure", "u", {})
    store.add_memory(_entry("z", "Zed keeps bees", user="z"), _vec(2), {})
    assert store.delete_user("u") == 1
    db = store.db  # type: ignore[attr-defined]
    for table in ("turns", "memories", "history", "events"):
        count = db.execute(f"SELECT COUNT(*) AS n FROM {table} WHERE user_id = 'u'").fetchone()
        assert count["n"] == 0, table
    assert store.bm25(Scope("u"), ["kitten"], 5) == []
    assert store.users() == ["z"]


def test_embedder_binding_refuses_another_model(store: Store) -> None:
    store.bind_embedder("minilm:all-MiniLM-L6-v2", 384)
    store.bind_embedder("minilm:all-MiniLM-L6-v2", 384)
    with pytest.raises(StoreError, match="same embedder"):
        store.bind_embedder("openai:text-embedding-3-small", 1536)


def test_transaction_rolls_back_everything(store: Store) -> None:
    with pytest.raises(RuntimeError), store.transaction():
        store.add_memory(_entry("a", "Ana adopted a kitten"), _vec(1), {})
        raise RuntimeError("boom")
    assert store.get_memory("a") is None
    assert store.history("a") == []


def test_vector_cache_grows_with_adds_and_matches_a_fresh_read(store_url: str) -> None:
    store = open_store(store_url)
    assert store.vectors(Scope("u"))[0] == []  # caches the empty scope
    held_ids, held = store.vectors(Scope("u"))
    for i in range(40):
        store.add_memory(_entry(f"m{i}", f"text {i}"), _vec(i), {})
    ids, matrix = store.vectors(Scope("u"))
    assert held_ids == [] and held.shape[0] == 0  # earlier snapshots do not change
    fresh = open_store(store_url)
    fresh_ids, fresh_matrix = fresh.vectors(Scope("u"))
    assert ids == fresh_ids and np.allclose(matrix, fresh_matrix)
    store.close()
    fresh.close()


def test_reopening_applies_no_migration_twice(store_url: str) -> None:
    store = open_store(store_url)
    applied = store.stats()["schema"]
    assert applied and len(set(applied)) == len(applied)
    store.close()
    again = open_store(store_url)  # the same store: nothing is applied twice
    assert again.stats()["schema"] == applied
    again.close()


def test_the_vector_cache_keeps_the_recently_used_users_within_its_bound(store: Store) -> None:
    from logicmem.store.sql import SQLStore

    assert isinstance(store, SQLStore)
    for user in ("a", "b", "c"):
        for i in range(4):
            store.add_memory(_entry(f"{user}{i}", "text", user=user), _vec(i), {})
    store.CACHE_BYTES = 2 * 4 * 8 * 4 + 1  # two users' 4 x 8 float32 matrices
    for user in ("a", "b", "c", "a"):
        ids, matrix = store.vectors(Scope(user))
        assert ids == [f"{user}{i}" for i in range(4)] and matrix.shape == (4, 8)
    assert [s.user_id for s in store._cache] == ["c", "a"]  # b, least recently used, left


def test_equal_keyword_scores_rank_in_the_order_stored(store: Store) -> None:
    """Equal BM25 scores (to 9 decimals) rank by the order stored on every backend: a sum's
    last bits depend on the order a backend adds the terms in, and PostgreSQL's plans add
    them in varying orders (before the scores were rounded, this ranked equal-score
    memories out of order there)."""
    import itertools
    import random

    rng = random.Random(5)
    vocab = [f"w{i}" for i in range(60)]
    with store.transaction():
        for i in range(1200):
            words = " ".join(rng.sample(vocab, rng.randint(3, 9)))
            store.add_memory(_entry(f"m{i:05d}", "Ana " + words, user="ana"), _vec(i), {})
    out_of_order, ties = 0, 0
    for _ in range(200):
        rows = store.bm25(Scope("ana"), rng.sample(vocab, 4), 30)
        for (a, x), (b, y) in itertools.pairwise(rows):
            if abs(x - y) < 1e-9:
                ties += 1
                out_of_order += a > b
    assert ties > 100 and out_of_order == 0


def test_a_nul_character_is_dropped_from_text_and_refused_in_ids(store_url: str) -> None:
    """NUL carries nothing a person wrote and PostgreSQL text cannot hold it: both
    backends store the text without it, and an id with one is a clear InputError."""
    from kit import HashEmbedder

    from logicmem import Memory
    from logicmem.errors import InputError

    mem = Memory(store_url, embedder=HashEmbedder(), config={"llm": {"provider": "none"}})
    try:
        mem.add("I drink green tea\x00 every morning.", user_id="ana", infer=False)
        [memory] = mem.get_all(user_id="ana")
        assert memory.text == "I drink green tea every morning."
        assert mem.update(memory.id, "I drink\x00 black tea.", user_id="ana").text == (
            "I drink black tea."
        )
        with pytest.raises(InputError, match="NUL"):
            mem.add("hello", user_id="bo\x00b")
        assert mem.admin_users() == ["ana"]
    finally:
        mem.close()
