"""The HTTP service: keys, tenancy, errors, limits, request ids, metrics, background adds.

Most tests drive the app in process (FastAPI's TestClient runs the real ASGI app and its
lifespan); ``test_real_server_on_loopback`` serves it with uvicorn on 127.0.0.1. Tenancy
runs on every store backend."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from kit import HashEmbedder
from servekit import serve

from logicmem import Memory
from logicmem.routes.visible.repo import VisibleRepository
from logicmem.service.app import ServiceOptions, create_app
from logicmem.service.keys import KeyRing
from logicmem.types import Scope
from logicmem.write.pipeline import WritePipeline


def _memory(store: str | Path) -> Memory:
    return Memory(store, embedder=HashEmbedder(), config={"llm": {"provider": "none"}})


class Api:
    """A client with a tenant's key (``as_(key)`` for another)."""

    def __init__(self, client: TestClient, key: str) -> None:
        self.client, self.key = client, key

    def __call__(self, method: str, path: str, **kw: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.key}", **kw.pop("headers", {})}
        return self.client.request(method, path, headers=headers, **kw)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[TestClient, Memory, KeyRing]]:
    mem = _memory(tmp_path / "svc.db")
    app = create_app(mem)
    with TestClient(app) as client:
        yield client, mem, KeyRing(mem.store)
    mem.close()


def _tenant(service: tuple[TestClient, Memory, KeyRing], name: str) -> Api:
    client, _, ring = service
    return Api(client, ring.create(name)[1])


def _add(api: Api, user: str, text: str, **extra: Any) -> dict[str, Any]:
    r = api("POST", f"/v1/users/{user}/memories", json={"text": text, **extra})
    assert r.status_code == 201, r.text
    return r.json()


# -- auth -------------------------------------------------------------------------------
def test_without_a_valid_key_every_data_route_is_401(service) -> None:
    client, _, ring = service
    record, key = ring.create("acme")
    for headers in ({}, {"Authorization": "Bearer lm_nope_nope"}, {"X-API-Key": "garbage"}):
        r = client.get("/v1/users", headers=headers)
        assert r.status_code == 401
        assert r.json()["error"]["code"] == "unauthorized"
        assert r.headers["www-authenticate"] == "Bearer"
    # the three ways a key may come
    for headers in (
        {"Authorization": f"Bearer {key}"},
        {"Authorization": f"Token {key}"},
        {"X-API-Key": key},
    ):
        assert client.get("/v1/users", headers=headers).status_code == 200
    # a key with a right id and a wrong secret
    assert client.get("/v1/users", headers={"X-API-Key": key[:-2] + "xx"}).status_code == 401
    ring.revoke(record.key_id)
    assert client.get("/v1/users", headers={"X-API-Key": key}).status_code == 401


def test_admin_key_manages_keys_only(service) -> None:
    client, _, ring = service
    admin = Api(client, ring.create(None, admin=True)[1])
    tenant = _tenant(service, "acme")
    assert admin("GET", "/v1/users").status_code == 403
    assert tenant("GET", "/v1/keys").status_code == 403
    r = admin("POST", "/v1/keys", json={"tenant": "beta", "name": "web app"})
    assert r.status_code == 201
    created = r.json()
    new = Api(client, created["key"])
    assert new("GET", "/v1/users").json() == {"users": []}
    listed = admin("GET", "/v1/keys", params={"tenant": "beta"}).json()["keys"]
    assert [k["key_id"] for k in listed] == [created["key_id"]]
    assert "key" not in listed[0] and created["key"] not in json.dumps(listed)
    assert admin("DELETE", f"/v1/keys/{created['key_id']}").json()["revoked_at"]
    assert new("GET", "/v1/users").status_code == 401
    bad = admin("POST", "/v1/keys", json={"tenant": "no/slash"})
    assert bad.status_code == 400 and "tenant" in bad.json()["error"]["message"]


def test_keys_are_stored_hashed(tmp_path: Path) -> None:
    mem = _memory(tmp_path / "keys.db")
    _, key = KeyRing(mem.store).create("acme")
    mem.close()
    secret = key.split("_", 2)[2]
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("keys.db*"))
    assert secret.encode() not in raw
    assert KeyRing(_memory(tmp_path / "keys.db").store).verify(key) is not None


# -- tenancy ----------------------------------------------------------------------------
@pytest.fixture
def backend_service(store_url: str) -> Iterator[tuple[TestClient, Memory, KeyRing]]:
    mem = _memory(store_url)
    with TestClient(create_app(mem)) as client:
        yield client, mem, KeyRing(mem.store)
    mem.close()


def test_tenants_with_the_same_user_id_never_mix(backend_service) -> None:
    a, b = _tenant(backend_service, "acme"), _tenant(backend_service, "beta")
    _add(a, "sam", "I am allergic to penicillin.", infer=False)
    _add(b, "sam", "My landlord is raising the rent in March.", infer=False)
    [mine] = a("GET", "/v1/users/sam/memories").json()["memories"]
    [theirs] = b("GET", "/v1/users/sam/memories").json()["memories"]
    assert "penicillin" in mine["text"] and mine["user_id"] == "sam"
    assert "landlord" in theirs["text"]
    for path, key in (("/v1/users/sam/search", "hits"), ("/v1/users/sam/context", "items")):
        r = a("POST", path, json={"query": "landlord rent March"})
        assert r.status_code == 200
        assert all("landlord" not in x["text"] for x in r.json()[key])
    # B's memory id, through A's key: not found, and B's memory is untouched
    other = theirs["id"]
    for method, path, kw in (
        ("GET", f"/v1/users/sam/memories/{other}", {}),
        ("PATCH", f"/v1/users/sam/memories/{other}", {"json": {"text": "changed"}}),
        ("DELETE", f"/v1/users/sam/memories/{other}", {}),
        ("GET", f"/v1/users/sam/memories/{other}/history", {}),
    ):
        r = a(method, path, **kw)
        assert r.status_code == 404, (method, path, r.text)
        assert "landlord" not in r.text
    assert b("GET", f"/v1/users/sam/memories/{other}").json()["text"] == theirs["text"]
    assert a("GET", "/v1/users").json() == {"users": ["sam"]}
    stats = a("GET", "/v1/stats").json()
    assert (stats["tenant"], stats["memories"], stats["users"]) == ("acme", 1, 1)
    # forgetting A's sam leaves B's sam whole
    assert a("DELETE", "/v1/users/sam").json()["memories_removed"] == 1
    assert a("GET", "/v1/users/sam/memories").json()["memories"] == []
    assert len(b("GET", "/v1/users/sam/memories").json()["memories"]) == 1


def test_reindex_judges_one_tenants_user_again(service) -> None:
    a, b = _tenant(service, "acme"), _tenant(service, "beta")
    _add(a, "sam", "I am allergic to penicillin.", infer=False)
    _add(a, "sam", "I painted the fence.", infer=False)
    _add(b, "sam", "I take warfarin.", infer=False)
    mem = service[1]
    with mem.store.transaction():  # as if indexed by an earlier release
        mem.store.db.execute("UPDATE memories SET indexed_with = 'visibility-earlier'")
    assert a("GET", "/v1/stats").json()["indexed_otherwise"] == 2
    r = a("POST", "/v1/users/sam/reindex", json={"stale": True})
    assert r.json() == {
        "user_id": "sam",
        "memories_reindexed": 2,
        "statements_restored": 0,
        "queued": False,
    }
    r = a("POST", "/v1/users/sam/reindex", json={"stale": True})  # nothing left to redo
    assert r.json()["memories_reindexed"] == 0
    assert a("POST", "/v1/users/sam/reindex").json()["memories_reindexed"] == 2
    assert a("GET", "/v1/stats").json()["indexed_otherwise"] == 0
    assert b("GET", "/v1/stats").json()["indexed_otherwise"] == 1  # B's own, untouched
    assert a("POST", "/v1/users/nobody/reindex").status_code == 404
    ctx = a("POST", "/v1/users/sam/context", json={"query": "a cold remedy", "k": 2}).json()
    assert all("warfarin" not in item["text"] for item in ctx["items"])


def test_a_start_warns_of_memories_indexed_by_another_version(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    mem = _memory(tmp_path / "old.db")
    mem.add("I am allergic to penicillin.", user_id="sam", infer=False)
    with TestClient(create_app(mem)), caplog.at_level("WARNING", logger="logicmem.service"):
        pass
    assert "indexed by another version" not in caplog.text
    with mem.store.transaction():  # as if written before versions were kept
        mem.store.db.execute("UPDATE memories SET indexed_with = NULL")
    with TestClient(create_app(mem)), caplog.at_level("WARNING", logger="logicmem.service"):
        pass
    assert "1 memory was indexed by another version" in caplog.text
    mem.close()


def test_reindex_restores_a_statement_merged_as_a_repeat(service, monkeypatch) -> None:
    a, b = _tenant(service, "acme"), _tenant(service, "beta")
    _add(a, "sam", "My wife is vegetarian.")
    _add(b, "sam", "My wife is vegetarian.")
    with monkeypatch.context() as patch:  # an older version's merge: "nothing new"
        patch.setattr(
            WritePipeline,
            "_duplicate_of",
            staticmethod(lambda text, vector, near, existing, *_: next(iter(existing), None)),
        )
        assert _add(a, "sam", "I'm vegetarian.")["added"] == []
        assert _add(b, "sam", "I'm vegetarian.")["added"] == []
    r = a("POST", "/v1/users/sam/reindex", json={"background": True})
    assert r.status_code == 202 and r.json()["statements_restored"] == 1
    texts = sorted(m["text"] for m in a("GET", "/v1/users/sam/memories").json()["memories"])
    assert texts == ["sam is vegetarian.", "sam's wife is vegetarian."]
    assert len(b("GET", "/v1/users/sam/memories").json()["memories"]) == 1  # not B's


def test_reindex_in_the_background_marks_now_and_a_job_finishes_it(service) -> None:
    client, mem, _ = service
    a = _tenant(service, "acme")
    _add(a, "sam", "I am allergic to penicillin.", infer=False)
    [inner] = mem.store.users()
    repo = VisibleRepository.of(mem.store)
    [row] = repo.critical_memories(Scope(inner))
    repo.clear([row.memory_id])  # as if an older version had judged it ordinary
    r = a("POST", "/v1/users/sam/reindex", json={"background": True})
    assert r.status_code == 202
    assert r.json() == {
        "user_id": "sam",
        "memories_reindexed": 1,
        "statements_restored": 0,
        "queued": True,
    }
    assert client.app.state.jobs.wait(30)  # type: ignore[attr-defined]
    assert [c.memory_id for c in repo.critical_memories(Scope(inner))] == [row.memory_id]
    assert mem.store.claim_unindexed() == []


def test_user_facing_ids_carry_no_tenant_prefix(service) -> None:
    a = _tenant(service, "acme")
    _add(a, "lee", "I have two dogs and I am vegetarian.")
    for r in (
        a("GET", "/v1/users/lee/memories"),
        a("POST", "/v1/users/lee/context", json={"query": "dinner for my dogs"}),
        a("POST", "/v1/users/lee/search", json={"query": "dogs"}),
    ):
        assert r.status_code == 200 and "acme/" not in r.text, r.text


# -- the routes -------------------------------------------------------------------------
def test_context_items_carry_route_and_reason(service) -> None:
    a = _tenant(service, "acme")
    _add(a, "kim", "I am allergic to tree nuts.")
    ctx = a("POST", "/v1/users/kim/context", json={"query": "a cake for Sunday", "k": 5}).json()
    assert ctx["items"], ctx
    for item in ctx["items"]:
        assert item["route"] and item["reason"]
    assert "tree nuts" in ctx["prompt"]


def test_a_request_to_forget_that_found_nothing_is_in_the_response(service) -> None:
    a = _tenant(service, "acme")
    found = _add(a, "kim", "I am allergic to tree nuts.")
    assert found["unmatched_forgets"] == []
    missed = _add(a, "kim", "Forget my address.")
    [request] = missed["added"]
    assert missed["unmatched_forgets"] == [request["id"]]  # the user-facing id, no tenant


def test_update_history_delete_round_trip(service) -> None:
    a = _tenant(service, "acme")
    added = _add(a, "kim", "My gym is on Pine Street.", infer=False)
    [entry] = added["added"]
    r = a("PATCH", f"/v1/users/kim/memories/{entry['id']}", json={"text": "Gym on Oak Street"})
    assert r.status_code == 200 and r.json()["text"] == "Gym on Oak Street"
    history = a("GET", f"/v1/users/kim/memories/{entry['id']}/history").json()["history"]
    assert [h["event"] for h in history] == ["ADD", "UPDATE"]
    assert a("DELETE", f"/v1/users/kim/memories/{entry['id']}").json()["deleted"] is True
    assert a("GET", f"/v1/users/kim/memories/{entry['id']}").status_code == 404


def test_background_add_returns_before_extraction_and_a_job_finishes_it(service) -> None:
    client, _mem, _ = service
    a = _tenant(service, "acme")
    out = _add(a, "ria", "My son Theo starts school in September.", background=True)
    assert out["queued"] is True and out["added"] == [] and out["extractor"] == "deferred"
    assert client.app.state.jobs.wait(30)  # type: ignore[attr-defined]
    texts = [m["text"] for m in a("GET", "/v1/users/ria/memories").json()["memories"]]
    assert any("Theo" in t for t in texts)
    jobs = a("GET", "/v1/stats").json()["jobs"]
    assert jobs["succeeded"] == 1 and jobs["failed"] == 0
    assert "logicmem_jobs_total" in client.get("/metrics").text


def test_deferred_add_leaves_turns_pending_for_anyone_to_resume(tmp_path: Path) -> None:
    mem = _memory(tmp_path / "d.db")
    result = mem.add("I work night shifts at the hospital.", user_id="u", defer=True)
    assert result.extractor == "deferred" and result.added == []
    assert mem.stats()["pending_turns"] == 1
    other = Memory(  # another process's store: the turns are free for it to take
        tmp_path / "d.db",
        embedder=HashEmbedder(),
        config={"llm": {"provider": "none"}, "extract": {"resume_pending": False}},
    )
    done = other.resume(user_id="u")
    assert len(done.turns) == 1 and done.added
    assert other.stats()["pending_turns"] == 0
    other.close()
    mem.close()


@pytest.mark.parametrize(
    "method, path, kw, status, code",
    [
        ("POST", "/v1/users/u/search", {"json": {"query": ""}}, 422, "invalid_request"),
        ("POST", "/v1/users/u/search", {"json": {"query": "x", "k": 0}}, 422, "invalid_request"),
        ("POST", "/v1/users/u/search", {"content": b"{not json"}, 422, "invalid_request"),
        ("POST", "/v1/users/u/search", {"json": {"query": "x", "nope": 1}}, 422, "invalid_request"),
        ("POST", "/v1/users/u/search", {"json": {"query": "x", "method": "zz"}}, 400, None),
        ("POST", "/v1/users/u/memories", {"json": {}}, 400, "invalid_input"),
        (
            "POST",
            "/v1/users/u/memories",
            {"json": {"text": "hi there you", "messages": [{"content": "x"}]}},
            400,
            "invalid_input",
        ),
        (
            "POST",
            "/v1/users/u/memories",
            {"json": {"text": "I moved to Lyon", "timestamp": "not a time"}},
            400,
            "invalid_input",
        ),
        ("POST", "/v1/users/u/answer", {"json": {"query": "what now"}}, 409, "not_configured"),
        ("POST", "/v1/users/u/consolidate", {"json": {"only": ["zz"]}}, 400, "invalid_input"),
        ("GET", "/v1/users/u/memories", {"params": {"limit": 0}}, 422, "invalid_request"),
        ("GET", "/v1/users/u/memories", {"params": {"limit": 10**30}}, 422, "invalid_request"),
        ("GET", "/v1/users/u/memories", {"params": {"as_of": "yesterday-ish"}}, 400, None),
        ("GET", "/v1/nowhere", {}, 404, "not_found"),
        ("PUT", "/v1/users", {}, 405, "method_not_allowed"),
    ],
)
def test_bad_input_is_a_4xx_with_a_stable_code_and_nothing_is_stored(
    service, method: str, path: str, kw: dict[str, Any], status: int, code: str | None
) -> None:
    _client, mem, _ = service
    a = _tenant(service, "acme")
    r = a(method, path, **kw)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["message"] and error["request_id"] == r.headers["x-request-id"]
    if code:
        assert error["code"] == code
    assert mem.stats()["turns"] == 0


def test_body_over_the_limit_is_413_whether_declared_or_streamed(tmp_path: Path) -> None:
    mem = _memory(tmp_path / "big.db")
    with TestClient(create_app(mem, options=ServiceOptions(max_body_bytes=10_000))) as client:
        key = KeyRing(mem.store).create("acme")[1]
        headers = {"Authorization": f"Bearer {key}", "content-type": "application/json"}
        body = json.dumps({"text": "word " * 5_000}).encode()
        r = client.post("/v1/users/u/memories", content=body, headers=headers)
        assert r.status_code == 413 and r.json()["error"]["code"] == "payload_too_large"

        def chunks() -> Iterator[bytes]:
            for i in range(0, len(body), 1_000):
                yield body[i : i + 1_000]

        r = client.post("/v1/users/u/memories", content=chunks(), headers=headers)
        assert r.status_code == 413
        assert mem.stats()["turns"] == 0
    mem.close()


def test_a_message_over_the_store_limit_is_refused_whole(service) -> None:
    _, mem, _ = service
    a = _tenant(service, "acme")
    messages = [{"role": "user", "content": "fine"}, {"role": "user", "content": "x" * 40_000}]
    r = a("POST", "/v1/users/u/memories", json={"messages": messages})
    assert r.status_code == 400 and "over the limit" in r.json()["error"]["message"]
    assert mem.stats()["turns"] == 0


def test_request_id_is_echoed_or_made(service) -> None:
    client, _, _ = service
    assert client.get("/healthz", headers={"X-Request-ID": "abc-123"}).headers["x-request-id"] == (
        "abc-123"
    )
    made = client.get("/healthz", headers={"X-Request-ID": "bad id\twith tab"})
    assert made.headers["x-request-id"] != "bad id\twith tab"
    assert len(made.headers["x-request-id"]) == 32


def test_metrics_count_requests_per_route_and_show_pending_turns(service) -> None:
    client, _, _ = service
    a = _tenant(service, "acme")
    a("POST", "/v1/users/u/search", json={"query": "anything"})
    a("POST", "/v1/users/u/search", json={"query": ""})
    text = client.get("/metrics").text
    assert (
        'logicmem_requests_total{method="POST",route="/v1/users/{user_id}/search",status="200"}'
        " 1.0" in text
    )
    assert 'route="/v1/users/{user_id}/search",status="422"} 1.0' in text
    assert "logicmem_pending_turns 0.0" in text
    assert "logicmem_request_seconds_bucket" in text


def test_health_and_readiness(service) -> None:
    client, _, _ = service
    assert client.get("/healthz").json()["status"] == "ok"
    ready = client.get("/readyz").json()
    assert ready["status"] == "ready" and ready["backend"] == "sqlite"


def test_real_server_on_loopback(tmp_path: Path) -> None:
    mem = _memory(tmp_path / "live.db")
    key = KeyRing(mem.store).create("acme")[1]
    with serve(create_app(mem)) as base:
        # What is checked is the behaviour over HTTP, not its speed (benchmarks measure
        # that): a loaded CI machine must not fail it on httpx's 5-second default.
        http = httpx.Client(base_url=base, timeout=120)
        headers = {"Authorization": f"Bearer {key}"}
        r = http.post(
            "/v1/users/zoe/memories",
            json={"messages": [{"role": "user", "content": "I am training for a marathon."}]},
            headers=headers,
        )
        assert r.status_code == 201
        hits = http.post("/v1/users/zoe/search", json={"query": "marathon"}, headers=headers)
        hits = hits.json()["hits"]
        assert hits and "marathon" in hits[0]["text"]
        http.close()
    mem.close()


def test_a_given_memory_is_warmed_before_the_first_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first write used to train the criticality classifier inside the request
    (seconds) when the app was given its memory; only a memory it opened was warmed."""
    mem = _memory(tmp_path / "warm.db")
    warmed: list[int] = []
    real = mem.warm_up
    monkeypatch.setattr(mem, "warm_up", lambda: (warmed.append(1), real())[1])
    with TestClient(create_app(mem)):
        assert warmed == [1]
    mem.close()


@pytest.mark.parametrize("mode, jobs", [("after_add", 1), ("manual", 0), ("auto", 0)])
def test_consolidation_is_queued_after_adds_as_settings_say(
    tmp_path: Path, mode: str, jobs: int
) -> None:
    """``auto`` with no LLM (the embedded one is not capable either): manual."""
    mem = Memory(
        tmp_path / "c.db",
        embedder=HashEmbedder(),
        config={"llm": {"provider": "none"}, "service": {"consolidate": mode}},
    )
    with TestClient(create_app(mem)) as client:
        a = Api(client, KeyRing(mem.store).create("acme")[1])
        said = {"content": "I volunteer at the animal shelter on Saturdays.", "turn_id": "t1"}
        for _ in range(2):  # the second sends the same turn again: nothing new, no job
            r = a("POST", "/v1/users/ivy/memories", json={"messages": [said], "session_id": "s1"})
            assert r.status_code == 201
        assert client.app.state.jobs.wait(60)  # type: ignore[attr-defined]
        counts = a("GET", "/v1/stats").json()["jobs"]
        assert counts["succeeded"] == jobs and counts["failed"] == 0
        enqueued = 'logicmem_jobs_enqueued_total{task="consolidate"}'
        assert (enqueued in client.get("/metrics").text) == bool(jobs)
    mem.close()


def test_a_keys_last_use_is_recorded(service) -> None:
    client, _, ring = service
    record, key = ring.create("acme")
    assert ring.get(record.key_id).last_used_at is None
    assert client.get("/v1/users", headers={"X-API-Key": key}).status_code == 200
    assert ring.get(record.key_id).last_used_at is not None
