"""The store keeps its promises: interrupted writes resume, keyword scores are one user's
own, a forgotten user leaves no byte behind, by-id calls stay inside their user. Each test
runs on every backend (``backend`` / ``store_url``) unless it is about the SQLite file."""

from __future__ import annotations

import socket
import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from kit import HashEmbedder
from pg import Backend

from logicmem import Memory, NotFoundError, StoreError
from logicmem.routes.visible.repo import VisibleRepository
from logicmem.store import keywords, schema
from logicmem.store.sqlite import SQLiteStore
from logicmem.store.url import open_store
from logicmem.types import MemoryEntry, Scope, Turn
from logicmem.write.messages import parse_messages

CONFIG = {"llm": {"provider": "none"}, "extract": {"mode": "rules"}}
SESSIONS = [
    ["I started a pottery class on Tuesdays.", "My brother Teodor lives in Lisbon."],
    ["I take 20 mg of lisinopril every morning.", "We adopted a grey cat called Smudge."],
    ["I am allergic to shellfish.", "My daughter plays the cello."],
]


def _memory(store: str | Path, **config: object) -> Memory:
    return Memory(store, embedder=HashEmbedder(), config={**CONFIG, **config})


def _add_session(mem: Memory, n: int, texts: list[str]) -> None:
    messages = [{"content": t, "turn_id": f"s{n}:{i}"} for i, t in enumerate(texts)]
    mem.add(messages, user_id="ana", session_id=f"s{n}", timestamp=f"2024-0{n + 1}-01")


def _texts(mem: Memory, user: str = "ana") -> list[str]:
    return sorted(m.text for m in mem.get_all(user_id=user))


def _dead_claim(backend: Backend, store: str) -> None:
    """What a process killed mid-extraction leaves: its turns pending under its claim."""
    with backend.raw(store) as execute:
        execute("UPDATE turns SET claim = ?", (f"{socket.gethostname()}:999999999:x",))


def _pending_turns(store: str) -> int:
    opened = open_store(store)
    try:
        return int(opened.stats()["pending_turns"])
    finally:
        opened.close()


def test_an_interrupted_write_resumes_to_what_a_clean_write_stores(backend: Backend) -> None:
    clean = _memory(backend.url("clean"))
    for n, texts in enumerate(SESSIONS):
        _add_session(clean, n, texts)
    # The interrupted run: session 1's turns are committed, then the process dies
    # before extracting (what kill -9 between the two transactions leaves).
    crashed_url = backend.url("crashed")
    crashed = _memory(crashed_url)
    _add_session(crashed, 0, SESSIONS[0])
    turns = parse_messages(
        [{"content": t, "turn_id": f"s1:{i}"} for i, t in enumerate(SESSIONS[1])],
        user_id="ana",
        session_id="s1",
        timestamp="2024-02-01",
    )
    crashed.store.add_turns(turns)
    crashed.close()
    _dead_claim(backend, crashed_url)
    assert _pending_turns(crashed_url) == 2
    rerun = _memory(crashed_url)  # opening finishes the pending turns
    assert rerun.stats()["pending_turns"] == 0
    for n, texts in enumerate(SESSIONS):
        _add_session(rerun, n, texts)  # the re-run of the whole ingest
    assert _texts(rerun) == _texts(clean)
    assert rerun.stats()["memories"] == clean.stats()["memories"]


def test_a_crash_inside_extraction_leaves_the_turns_pending(
    backend: Backend, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = _memory(store_url)

    def crash(*_: object) -> None:
        raise KeyboardInterrupt  # the process stops mid-write

    monkeypatch.setattr(mem.pipeline, "_integrate", crash)
    with pytest.raises(KeyboardInterrupt):
        _add_session(mem, 0, SESSIONS[0])
    mem.close()
    monkeypatch.undo()
    _dead_claim(backend, store_url)
    skipped = _memory(store_url, extract={"mode": "rules", "resume_pending": False})
    assert skipped.stats()["pending_turns"] == 2 and skipped.get_all(user_id="ana") == []
    skipped.close()
    again = _memory(store_url)
    assert len(again.get_all(user_id="ana")) == 2 and again.stats()["pending_turns"] == 0


def test_a_live_writers_pending_turns_are_not_taken(store_url: str) -> None:
    store = open_store(store_url)
    store.add_turns([Turn("ana", "s", "t1", "ana", "I keep bees.")])
    other = open_store(store_url)  # same process: the first claim is alive
    assert other.claim_pending() == []
    assert len(store.claim_pending()) == 0  # its own write is under way
    store.close()
    other.close()


def test_keyword_scores_do_not_depend_on_other_users(store_url: str) -> None:
    mem = _memory(store_url)
    for text in ["I had quinoa for lunch.", "I walk the dog after lunch.", "I like jazz."]:
        mem.add(text, user_id="ana", infer=False)
    before = [
        (h.id, h.score) for h in mem.search("quinoa lunch", user_id="ana", method="bm25").hits
    ]
    for i in range(30):
        mem.add(f"Quinoa salad number {i} for lunch.", user_id="bo", infer=False)
    after = [(h.id, h.score) for h in mem.search("quinoa lunch", user_id="ana", method="bm25").hits]
    assert before == after and before


def test_keyword_search_stems_like_the_index(store_url: str) -> None:
    store = open_store(store_url)
    store.add_memory(MemoryEntry(id="a", user_id="u", text="Ana's allergies: walnuts."), _v(), {})
    store.add_memory(MemoryEntry(id="b", user_id="u", text="Ana runs marathons."), _v(), {})
    assert [i for i, _ in store.bm25(Scope("u"), ["allergy", "walnut"], 5)] == ["a"]
    assert [i for i, _ in store.bm25(Scope("u"), ["running"], 5)] == ["b"]
    assert store.bm25(Scope("someone-else"), ["running"], 5) == []


def _v(seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(8).astype(np.float32)
    return v / np.linalg.norm(v)


def _bytes_of(path: Path, word: str) -> int:
    total = 0
    for suffix in ("", "-wal", "-shm"):
        f = Path(str(path) + suffix)
        if f.exists():
            total += f.read_bytes().count(word.encode())
    return total


WORDS = ["Zarquonel", "Vindaloop", "Pemberwick"]


def _remember_words(mem: Memory) -> None:
    """Ana's memories, her profile and a derived text name her cats; Bo keeps bees."""
    for i, word in enumerate(WORDS):
        mem.add(f"I have a cat named {word} and a peanut allergy {i}.", user_id="ana")
    mem.add("I keep bees in the garden.", user_id="bo")
    mem.consolidate(user_id="ana", only=["profile"])
    # A text derived from the user's memory (what the LLM anticipation path caches).
    derived = [f"When travelling with {WORDS[0]}: book a pet-friendly room"]
    VisibleRepository.of(mem.store).cache_vectors("ana", derived, mem.embedder.embed(derived))
    assert VisibleRepository.of(mem.store).load_profile("ana") is not None


def test_forget_leaves_no_byte_of_the_user_in_the_file(tmp_path: Path) -> None:
    """SQLite only: the bytes of the file and its -wal (PostgreSQL's files are the
    server's; the row-level promise is tested on every backend below)."""
    path = tmp_path / "m.db"
    mem = Memory(path, embedder=HashEmbedder(), config=CONFIG)
    _remember_words(mem)
    assert all(_bytes_of(path, w) > 0 for w in WORDS)
    mem.delete_user("ana")
    assert [w for w in WORDS if _bytes_of(path, w)] == []
    assert mem.admin_users() == ["bo"] and _texts(mem, "bo")


def test_forget_leaves_no_row_that_names_what_the_user_said(backend: Backend) -> None:
    store = backend.url("m")
    mem = Memory(store, embedder=HashEmbedder(), config=CONFIG)
    _remember_words(mem)
    assert all(backend.rows_mentioning(store, w) for w in WORDS)
    mem.delete_user("ana")
    assert [row for w in WORDS for row in backend.rows_mentioning(store, w)] == []
    assert mem.admin_users() == ["bo"] and _texts(mem, "bo")
    mem.close()


def test_delete_keeps_only_a_tombstone(backend: Backend) -> None:
    store = backend.url("m")
    mem = _memory(store)
    mem.add("I keep a pet ferret named Quillibrand.", user_id="ana")
    mem.add("I play the oboe.", user_id="ana")
    [ferret] = [m for m in mem.get_all(user_id="ana") if "ferret" in m.text]
    assert mem.get_all(user_id="ana", as_of="1999-01-01") == []
    mem.delete(ferret.id, user_id="ana")
    rows = mem.history(ferret.id, user_id="ana")
    assert rows[-1]["event"] == "DELETE"
    assert all(r["old_text"] is None and r["new_text"] is None for r in rows)
    mem.store._purge()  # type: ignore[attr-defined]
    if backend.is_sqlite:
        assert _bytes_of(Path(store), "Quillibrand") == 0
    assert backend.rows_mentioning(store, "Quillibrand") == []
    # Re-sending the conversation does not bring the deleted memory back.
    assert len(mem.get_all(user_id="ana")) == 1


def test_a_wrong_merge_is_restored_and_a_deleted_one_leaves_no_text(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A statement merged as a repeat by an older rule comes back on ``reindex``; the
    MERGE event that keeps its words loses them with the memory (``delete``)."""
    store = backend.url("m")
    mem = _memory(store, extract={"mode": "rules", "dedup_threshold": 0.5})
    mem.add("My wife is vegetarian.", user_id="ana")
    mem.add("My brother keeps a ferret named Quillibrand.", user_id="ana")
    with monkeypatch.context() as patch:
        patch.setattr("logicmem.write.pipeline.adds_information", lambda new, old: False)
        assert mem.add("I'm vegetarian.", user_id="ana").added == []
        assert mem.add("My brother has a ferret, Quillibrand!", user_id="ana").added == []
    [ferret] = [m for m in mem.get_all(user_id="ana") if "ferret" in m.text]
    mem.delete(ferret.id, user_id="ana")
    assert backend.rows_mentioning(store, "Quillibrand") == []
    mem.reindex(user_id="ana")
    assert _texts(mem) == ["ana is vegetarian.", "ana's wife is vegetarian."]
    mem.close()


def test_what_a_new_value_leaves_of_a_memory_stays_and_is_forgotten_with_the_user(
    backend: Backend,
) -> None:
    """A move ends where Ana lives, not where she works, said in the same message; the
    part kept is a memory like any other: forgetting the user leaves none of it."""
    store = backend.url("p")
    mem = _memory(store)
    mem.add("I live in Boston and I work at a bakery.", user_id="ana", timestamp="2024-01-05")
    mem.add("I moved to Denver.", user_id="ana", timestamp="2024-03-01")
    assert _texts(mem) == ["ana moved to Denver.", "ana works at a bakery."]
    [kept] = [m for m in mem.get_all(user_id="ana") if "bakery" in m.text]
    assert (kept.valid_from, kept.said_at) == ("2024-03-01T00:00:00", "2024-01-05T00:00:00")
    assert backend.rows_mentioning(store, "bakery")
    mem.delete_user("ana")
    assert backend.rows_mentioning(store, "bakery") == []
    mem.close()


@pytest.fixture
def memory(store_url: str) -> Iterator[Memory]:
    """The suite's ``memory`` fixture, on each backend."""
    mem = Memory(store_url, embedder=HashEmbedder(), config={"llm": {"provider": "none"}})
    yield mem
    mem.close()


def test_by_id_calls_refuse_another_users_memory(memory: Memory) -> None:
    memory.add("I have a kitten named Pico.", user_id="maya")
    [entry] = memory.get_all(user_id="maya")
    for call in (
        lambda: memory.get(entry.id, user_id="eve"),
        lambda: memory.update(entry.id, "eve was here", user_id="eve"),
        lambda: memory.delete(entry.id, user_id="eve"),
        lambda: memory.history(entry.id, user_id="eve"),
    ):
        with pytest.raises(NotFoundError):
            call()
    assert memory.get(entry.id, user_id="maya").text == entry.text
    with pytest.raises(NotFoundError):
        memory.get(entry.id, user_id="maya", agent_id="another-agent")


def test_a_read_only_store_serves_reads_and_refuses_writes(tmp_path: Path) -> None:
    """SQLite only: a file opened ``immutable`` (PostgreSQL has roles for that)."""
    path = tmp_path / "m.db"
    mem = _memory(path)
    mem.add("I have a kitten named Pico.", user_id="maya")
    mem.close()
    store = SQLiteStore(path, read_only=True)
    assert [m.text for m in store.list_memories(Scope("maya"))]
    with pytest.raises(StoreError, match="read-only"):
        store.add_turns([Turn("maya", "s", "t9", "maya", "hello there friend")])
    store.close()


def test_stats_count_users_with_only_turns(store_url: str) -> None:
    store = open_store(store_url)
    store.add_turns([Turn("ana", "s", "t1", "ana", "hi")])
    assert store.stats()["users"] == 1


def test_a_store_of_the_previous_schema_is_upgraded_with_its_keyword_index(
    tmp_path: Path,
) -> None:
    """SQLite only: a file written by a release before the keyword index."""
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.execute(schema.CREATE_MIGRATIONS_TABLE)
    for number, name, script in schema.MIGRATIONS[:5]:
        db.executescript(script)
        db.execute(schema.RECORD_MIGRATION, (number, name, "2024-01-01T00:00:00"))
    db.execute(
        "INSERT INTO memories (id, user_id, text, category, status, created_at, updated_at, "
        "said_at, embedding) VALUES ('m1', 'ana', 'Ana grows dahlias.', 'others', 'active', "
        "'2024-01-01', '2024-01-01', '2023-05-01T00:00:00', ?)",
        (_v().tobytes(),),
    )
    db.commit()
    db.close()
    store = SQLiteStore(path)
    assert [i for i, _ in store.bm25(Scope("ana"), ["dahlia"], 5)] == ["m1"]
    assert store.get_memory("m1").valid_from == "2023-05-01T00:00:00"  # type: ignore[union-attr]


POSTINGS = """
SELECT m.id, t.term, t.tf, m.n_terms FROM memory_terms t JOIN memories m
ON m.rowid = t.memory_rowid WHERE t.user_id = ? AND t.term IN ({marks})"""


def _reference_bm25(
    postings: list[tuple[str, str, int, int]], docs: int, total_length: int
) -> dict[str, float]:
    """Okapi BM25 per document from (doc, term, tf, doc length) rows, in plain Python."""
    avg = max(total_length / docs, 1e-9)
    weights = keywords.idf(Counter(term for _, term, _, _ in postings), docs)
    scores: dict[str, float] = {}
    for doc, term, tf, length in postings:
        norm = (
            tf
            * (keywords.K1 + 1)
            / (tf + keywords.K1 * (1 - keywords.B + keywords.B * length / avg))
        )
        scores[doc] = scores.get(doc, 0.0) + weights[term] * norm
    return scores


def _postings(
    texts: dict[str, str], stems: list[str]
) -> tuple[list[tuple[str, str, int, int]], int, int]:
    """(doc, term, tf, doc length) of ``stems`` in ``texts`` by the index's own tokenizer,
    and the number and total length of the documents."""
    rows, total = [], 0
    for doc, text in texts.items():
        counts, length = keywords.term_counts(text)
        total += length
        rows += [(doc, term, counts[term], length) for term in stems if term in counts]
    return rows, len(texts), total


def test_the_stores_bm25_equals_the_reference_scoring(backend: Backend, store_url: str) -> None:
    store = open_store(store_url)
    texts: dict[str, str] = {}
    rng = np.random.default_rng(3)
    words = [
        "cat",
        "dog",
        "garden",
        "tomato",
        "river",
        "bakery",
        "piano",
        "cello",
        "allergy",
        "walnut",
        "lunch",
        "bike",
    ]
    for i in range(200):
        text = " ".join(rng.choice(words, size=int(rng.integers(2, 9))))
        texts[f"m{i:03d}"] = text
        store.add_memory(MemoryEntry(id=f"m{i:03d}", user_id="u", text=text), _v(i), {})
    store.add_memory(MemoryEntry(id="other", user_id="v", text="cat cat cat"), _v(), {})
    for query in (["cat"], ["walnut", "allergy"], ["piano", "lunch", "river", "bikes"]):
        got = store.bm25(Scope("u"), query, 20)
        stems = keywords.query_stems(query)
        postings, docs, length = _postings(texts, stems)
        if backend.is_sqlite:  # the reference reads the index the store built
            db = store.db  # type: ignore[attr-defined]
            rows = db.execute(
                POSTINGS.format(marks=",".join("?" * len(stems))) + " AND m.status = 'active'",
                ["u", *stems],
            ).fetchall()
            n = db.execute("SELECT COUNT(*), SUM(n_terms) FROM memories WHERE user_id='u'")
            assert sorted((r[0], r[1], r[2], r[3]) for r in rows) == sorted(postings)
            assert tuple(n.fetchone()) == (docs, length)
        ref = _reference_bm25(postings, docs, length)
        want = sorted(ref.items(), key=lambda kv: (-kv[1], kv[0]))[:20]
        assert [i for i, _ in got] == [i for i, _ in want]
        assert np.allclose([s for _, s in got], [s for _, s in want])


def test_keyword_ties_go_to_the_memory_stored_first(store_url: str) -> None:
    store = open_store(store_url)
    for memory_id in ("zz-first", "aa-second", "mm-third"):
        store.add_memory(MemoryEntry(id=memory_id, user_id="u", text="I grow tomatoes."), _v(), {})
    ranked = [i for i, _ in store.bm25(Scope("u"), ["tomatoes"], 5)]
    assert ranked == ["zz-first", "aa-second", "mm-third"]
