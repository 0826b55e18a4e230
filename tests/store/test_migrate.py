"""``logicmem migrate``: a store copied between backends keeps every object and answers the
same; a copy never lands half-done or on top of another user's data."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kit import HashEmbedder
from pg import Backend, PGServer

from logicmem import Memory
from logicmem.cli.main import main
from logicmem.errors import StoreError
from logicmem.routes.rootmem.repo import RootMemRepository, RootUnit, UnitEvidence
from logicmem.routes.rulemem.repo import RuleMemRepository
from logicmem.routes.visible.repo import VisibleRepository
from logicmem.store.migrate import migrate, texts_checksum
from logicmem.store.sql import SQLStore
from logicmem.store.url import open_store
from logicmem.types import Scope

CONFIG = {"llm": {"provider": "none"}}


@pytest.fixture
def postgres(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    server: PGServer = request.getfixturevalue("pg_server")
    chosen = Backend("postgresql", tmp_path, server)
    yield chosen
    chosen.close()


def _memory(url: str) -> Memory:
    return Memory(url, embedder=HashEmbedder(), config=CONFIG)


def _fill(url: str, consolidate: bool = True) -> None:
    """A store with one of everything: turns, memories changed and deleted (history and a
    tombstone), a profile, RuleMem facts and rules, a root unit, two users."""
    mem = _memory(url)
    mem.add("I am allergic to tree nuts. My daughter Mia is 6.", user_id="ana",
            timestamp="2024-01-02T10:00:00")  # fmt: skip
    mem.add("I work as a nurse at the city hospital.", user_id="ana",
            timestamp="2024-02-02T10:00:00")  # fmt: skip
    mem.add("My cat is called Miso and hates thunderstorms.", user_id="ana",
            timestamp="2024-03-02T10:00:00")  # fmt: skip
    mem.add("Bob loves jazz and plays the trumpet.", user_id="bob")
    ana = {m.text: m for m in mem.get_all(user_id="ana")}
    nurse = next(m for t, m in ana.items() if "nurse" in t)
    mem.update(nurse.id, "Ana works as a head nurse at the city hospital.", user_id="ana")
    cat = next(m for t, m in ana.items() if "Miso" in t)
    mem.delete(cat.id, user_id="ana")
    # RuleMem scores its rules with the embedded model's log-likelihoods (a few seconds).
    mem.consolidate(user_id="ana", only=["profile", "rulemem"] if consolidate else ["profile"])
    evidence = [UnitEvidence(nurse.id, "works night shifts")]
    RootMemRepository.of(mem.store).add_units(
        [RootUnit("u1", "ana", "asked about sleep", "mind her night shifts", evidence)]
    )
    mem.close()


def _snapshot(url: str) -> dict[str, Any]:
    """Everything a user can read back, with ids (they are kept) and no positions."""
    mem = _memory(url)
    try:
        out: dict[str, Any] = {}
        for user in ("ana", "bob"):
            memories = mem.get_all(user_id=user)
            out[user] = {
                "memories": sorted((m.id, m.text, m.status, m.valid_from) for m in memories),
                "history": {m.id: mem.history(m.id, user_id=user) for m in memories},
                "context": [
                    (i.memory_id, i.route, i.reason)
                    for i in mem.context("baking cookies with walnuts", user_id=user).items
                ],
                "search": [h.id for h in mem.search("hospital work", user_id=user).hits],
                "turns": [(t.turn_id, t.text) for t in mem.store.get_turns(Scope(user))],
            }
        scope = Scope("ana")
        rules, _ = RuleMemRepository.of(mem.store).rules(scope)
        quads, _ = RuleMemRepository.of(mem.store).quads(scope)
        out["rules"] = sorted((r.id, r.head, r.support) for r in rules)
        out["quads"] = sorted(q.id for q in quads)
        out["units"] = [
            (u.unit_id, u.guidance) for u in RootMemRepository.of(mem.store).units(scope)
        ]
        out["profile"] = VisibleRepository.of(mem.store).load_profile("ana")
        out["counts"] = {k: v for k, v in mem.stats().items() if isinstance(v, int) and k not in
                         ("bytes_on_disk",)}  # fmt: skip
        return out
    finally:
        mem.close()


def test_sqlite_to_postgresql_and_back_keeps_everything(tmp_path: Path, postgres: Backend) -> None:
    source = str(tmp_path / "source.db")
    _fill(source)
    there = postgres.url("copy")
    back = str(tmp_path / "back.db")
    assert main(["migrate", source, there]) == 0
    assert main(["migrate", there, back]) == 0
    original = _snapshot(source)
    assert original["profile"] is not None and original["profile"].lines
    assert original["rules"] and original["quads"] and original["units"]
    assert any(h["event"] == "UPDATE" for hs in original["ana"]["history"].values() for h in hs)
    assert _snapshot(there) == original
    assert _snapshot(back) == original


def test_a_copy_refuses_a_store_that_is_not_empty_unless_merged(
    tmp_path: Path, postgres: Backend
) -> None:
    source = str(tmp_path / "source.db")
    _fill(source, consolidate=False)
    target = postgres.url("target")
    other = _memory(target)
    other.add("Cleo collects stamps.", user_id="cleo")
    other.close()
    src, dst = open_store(source), open_store(target)
    assert isinstance(src, SQLStore) and isinstance(dst, SQLStore)
    try:
        with pytest.raises(StoreError, match="not empty"):
            migrate(src, dst)
        assert dst.users() == ["cleo"]
        report = migrate(src, dst, merge=True)
        assert sorted(dst.users()) == ["ana", "bob", "cleo"]
        assert report.checksum == texts_checksum(dst, ["ana", "bob"])
        # A user on both sides would interleave two histories: refused, nothing written.
        before = dst.stats()
        with pytest.raises(StoreError, match="in both stores"):
            migrate(src, dst, merge=True)
        assert dst.stats() == before
    finally:
        src.close()
        dst.close()


def test_the_copy_is_one_transaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy that fails part-way (here: the check at the end) leaves the destination empty."""
    source, target = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    _fill(source, consolidate=False)
    monkeypatch.setattr(
        "logicmem.store.migrate.texts_checksum", lambda store, users: str(id(store))
    )
    src, dst = open_store(source), open_store(target)
    assert isinstance(src, SQLStore) and isinstance(dst, SQLStore)
    with pytest.raises(StoreError, match="checksum differs"):
        migrate(src, dst)
    assert dst.users() == [] and dst.stats()["memories"] == 0
    src.close()
    dst.close()


def test_bad_migrations_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["migrate", str(tmp_path / "missing.db"), str(tmp_path / "b.db")]) == 2
    assert "no store at" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()  # nothing created where nothing was
    _fill(str(tmp_path / "a.db"), consolidate=False)
    assert main(["migrate", str(tmp_path / "a.db"), str(tmp_path / "a.db")]) == 2
    assert "the same store" in capsys.readouterr().err
