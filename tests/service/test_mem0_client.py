"""mem0's own client against ``logicmem serve``: the real ``mem0ai`` package
(``MemoryClient(api_key=..., host=...)``) talks to uvicorn on 127.0.0.1.

One server serves the whole module (a store's first extraction trains the visible route
once, ~10 s); every test uses tenants of its own, so none sees another's memories. Every
socket the process opens is checked: a connection to anything but loopback (mem0's
telemetry, for one) fails the test that made it.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from kit import HashEmbedder
from servekit import serve

from logicmem import Memory
from logicmem.service.app import create_app
from logicmem.service.keys import KeyRing

LOOPBACK = {"127.0.0.1", "::1", "localhost"}
MEMORY_FIELDS = {
    "id",
    "memory",
    "hash",
    "user_id",
    "agent_id",
    "app_id",
    "run_id",
    "metadata",
    "categories",
    "created_at",
    "updated_at",
    "expiration_date",
}


@dataclass
class NetGuard:
    """Refuses (and records) every connection and name lookup beyond loopback."""

    blocked: list[str] = field(default_factory=list)

    def install(self, mp: pytest.MonkeyPatch) -> None:
        connect, connect_ex, getaddrinfo = (
            socket.socket.connect,
            socket.socket.connect_ex,
            socket.getaddrinfo,
        )

        def check(sock: socket.socket, address: Any) -> None:
            if sock.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in LOOPBACK:
                self.blocked.append(f"connect {address}")
                raise OSError(f"test: blocked a connection to {address} (not loopback)")

        def guarded_connect(sock: socket.socket, address: Any) -> None:
            check(sock, address)
            connect(sock, address)

        def guarded_connect_ex(sock: socket.socket, address: Any) -> int:
            check(sock, address)
            return connect_ex(sock, address)

        def guarded_getaddrinfo(host: Any, *args: Any, **kw: Any) -> Any:
            name = host.decode() if isinstance(host, bytes) else host
            if name is not None and name not in LOOPBACK:
                self.blocked.append(f"getaddrinfo {name}")
                raise socket.gaierror(f"test: blocked a lookup of {name} (not loopback)")
            return getaddrinfo(host, *args, **kw)

        mp.setattr(socket.socket, "connect", guarded_connect)
        mp.setattr(socket.socket, "connect_ex", guarded_connect_ex)
        mp.setattr(socket, "getaddrinfo", guarded_getaddrinfo)


@dataclass
class Stack:
    base: str
    app: FastAPI
    ring: KeyRing
    mem0: Any
    guard: NetGuard

    def key(self, tenant: str) -> str:
        return self.ring.create(tenant)[1]

    def client(self, tenant: str) -> Any:
        return self.mem0.MemoryClient(api_key=self.key(tenant), host=self.base)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with pytest.MonkeyPatch.context() as mp:
        guard = NetGuard()
        guard.install(mp)  # before mem0 is imported: its import must not call out either
        for name in list(os.environ):
            if name.startswith(("LOGICMEM_", "MEM0_")) or name.lower().endswith("_proxy"):
                mp.delenv(name)  # a proxy would take the loopback requests elsewhere
        mp.setenv("MEM0_TELEMETRY", "False")
        mp.setenv("MEM0_DIR", str(tmp_path_factory.mktemp("mem0-home")))  # not ~/.mem0
        mp.setenv("HF_HUB_OFFLINE", "1")
        mem0 = pytest.importorskip("mem0")
        from mem0.memory import telemetry

        # The flag is read when mem0 is first imported: hold it even if that was earlier.
        mp.setattr(telemetry, "MEM0_TELEMETRY", False)
        mp.setattr(telemetry.client_telemetry, "posthog", None)
        path: Path = tmp_path_factory.mktemp("mem0-store") / "m.db"
        memory = Memory(path, embedder=HashEmbedder(), config={"llm": {"provider": "none"}})
        app = create_app(memory)
        with serve(app) as base:
            yield Stack(base, app, KeyRing(memory.store), mem0, guard)
        memory.close()


@pytest.fixture(autouse=True)
def nothing_beyond_loopback(stack: Stack) -> Iterator[None]:
    before = len(stack.guard.blocked)
    yield
    assert stack.guard.blocked[before:] == [], "the client called beyond the loopback host"


def _texts(page: dict[str, Any]) -> list[str]:
    return [m["memory"] for m in page["results"]]


# -- the client, end to end -----------------------------------------------------------------


def test_the_client_checks_its_key_with_ping(stack: Stack) -> None:
    client = stack.client("t-ping")
    assert client.org_id == "t-ping" and client.project_id == "t-ping"
    with pytest.raises(ValueError, match="not valid"):
        stack.mem0.MemoryClient(api_key="lm_nokey_nosecret", host=stack.base)
    admin = stack.ring.create(None, admin=True)[1]
    with pytest.raises(ValueError, match="admin key"):
        stack.mem0.MemoryClient(api_key=admin, host=stack.base)


def test_add_messages_then_get_all(stack: Stack) -> None:
    client = stack.client("t-add")
    messages = [
        {"role": "user", "content": "I am allergic to peanuts."},
        {"role": "assistant", "content": "Noted, no peanuts."},
    ]
    out = client.add(messages, user_id="alice", infer=False, metadata={"source": "chat"})
    assert out["status"] == "SUCCEEDED"
    [event] = out["results"]
    assert event["event"] == "ADD" and event["memory"] == "I am allergic to peanuts."
    assert event["data"] == {"memory": "I am allergic to peanuts."}

    page = client.get_all(filters={"user_id": "alice"})
    assert page["count"] == 1 and page["next"] is None and page["previous"] is None
    [memory] = page["results"]
    assert set(memory) == MEMORY_FIELDS
    assert memory["id"] == event["id"] and memory["user_id"] == "alice"  # no tenant prefix
    assert memory["agent_id"] is None and memory["run_id"] is None
    assert memory["metadata"]["source"] == "chat"  # what add was given
    assert memory["categories"] and all(isinstance(c, str) for c in memory["categories"])
    assert memory["created_at"] and memory["updated_at"]
    assert client.get_all(filters={"AND": [{"user_id": "alice"}]})["count"] == 1
    assert client.get_all(filters={"user_id": "bob"})["count"] == 0


def test_agent_and_run_ids_scope_add_get_all_and_search(stack: Stack) -> None:
    client = stack.client("t-scope")
    client.add("I prefer window seats.", user_id="alice", agent_id="travel", run_id="trip-1")
    client.add("I prefer aisle seats at concerts.", user_id="alice", agent_id="tickets")
    client.add("I drink my coffee black.", user_id="alice", infer=False)

    def ids_for(*conditions: dict[str, Any]) -> list[tuple[str | None, str | None]]:
        page = client.get_all(filters={"AND": [{"user_id": "alice"}, *conditions]})
        return sorted((m["agent_id"] or "", m["run_id"] or "") for m in page["results"])

    assert len(ids_for()) == 3  # the user alone: every agent and run
    assert ids_for({"agent_id": "travel"}) == [("travel", "trip-1")]
    assert ids_for({"run_id": "trip-1"}) == [("travel", "trip-1")]
    assert ids_for({"agent_id": "*"}) == [("tickets", ""), ("travel", "trip-1")]  # non-null
    assert ids_for({"run_id": "*"}) == [("travel", "trip-1")]
    hits = client.search("seats", filters={"AND": [{"user_id": "alice"}, {"agent_id": "tickets"}]})
    assert [h["agent_id"] for h in hits["results"]] == ["tickets"]


def test_add_reports_mem0_events_from_logicmem_extraction(stack: Stack) -> None:
    client = stack.client("t-events")
    [boston] = client.add("I live in Boston.", user_id="alice")["results"]
    assert boston["event"] == "ADD" and "Boston" in boston["memory"]

    moved = client.add("I moved to Denver.", user_id="alice")["results"]
    by_event = {e["event"]: e for e in moved}
    assert set(by_event) == {"ADD", "DELETE"}
    denver = by_event["ADD"]
    # the replaced memory leaves the current ones: DELETE, naming what replaced it
    assert by_event["DELETE"]["id"] == boston["id"]
    assert by_event["DELETE"]["superseded_by"] == denver["id"]
    assert _texts(client.get_all(filters={"user_id": "alice"})) == [denver["memory"]]

    [again] = client.add("I moved to Denver.", user_id="alice")["results"]
    assert again["event"] == "UPDATE" and again["id"] == denver["id"]  # a repeat: merged
    assert again["previous_memory"] == again["memory"] == denver["memory"]
    assert client.get_all(filters={"user_id": "alice"})["count"] == 1

    client.delete(denver["id"], delete_linked=True)  # and what it replaced
    for memory_id in (denver["id"], boston["id"]):
        with pytest.raises(stack.mem0.exceptions.MemoryNotFoundError):
            client.get(memory_id)


def test_search_with_filters(stack: Stack) -> None:
    client = stack.client("t-search")
    client.add("I am allergic to peanuts.", user_id="alice", infer=False, metadata={"k": "health"})
    client.add("I collect vintage stamps.", user_id="alice", infer=False, metadata={"k": "hobby"})
    client.add("I play chess on Sundays.", user_id="alice", infer=False)
    client.add("I am allergic to cats.", user_id="bob", infer=False)

    hits = client.search("peanut allergy", filters={"user_id": "alice"})["results"]
    assert hits[0]["memory"] == "I am allergic to peanuts."
    assert set(hits[0]) == MEMORY_FIELDS | {"score"} and isinstance(hits[0]["score"], float)
    assert {h["user_id"] for h in hits} == {"alice"}
    assert (
        len(client.search("peanut allergy", filters={"user_id": "alice"}, top_k=1)["results"]) == 1
    )

    by_meta = client.search("allergy", filters={"user_id": "alice", "metadata": {"k": "hobby"}})
    assert _texts(by_meta) == ["I collect vintage stamps."]
    category = hits[0]["categories"][0]
    by_category = client.search(
        "peanut", filters={"AND": [{"user_id": "alice"}, {"categories": {"in": [category]}}]}
    )
    assert by_category["results"] and all(
        h["categories"] == [category] for h in by_category["results"]
    )
    only = client.search("peanut", filters={"user_id": "alice"}, fields=["id", "score"])
    assert all(set(h) == {"id", "score"} for h in only["results"])
    with pytest.raises(stack.mem0.exceptions.ValidationError, match="created_at"):
        client.search("x", filters={"AND": [{"user_id": "alice"}, {"created_at": {"gte": "2024"}}]})


def test_get_update_and_history(stack: Stack) -> None:
    client = stack.client("t-update")
    [added] = client.add("I am allergic to peanuts.", user_id="alice", infer=False)["results"]
    memory = client.get(added["id"])
    assert set(memory) == MEMORY_FIELDS and memory["memory"] == "I am allergic to peanuts."

    updated = client.update(added["id"], text="alice is allergic to tree nuts.")
    assert updated["id"] == added["id"]
    assert updated["memory"] == updated["text"] == "alice is allergic to tree nuts."
    assert client.get(added["id"])["memory"] == "alice is allergic to tree nuts."
    client.update(added["id"], metadata={"checked": True})
    assert client.get(added["id"])["metadata"]["checked"] is True

    history = client.history(added["id"])
    assert [h["event"] for h in history][:2] == ["ADD", "UPDATE"]
    first, second = history[0], history[1]
    assert first["old_memory"] is None and first["new_memory"] == "I am allergic to peanuts."
    assert second["old_memory"] == "I am allergic to peanuts."
    assert second["new_memory"] == "alice is allergic to tree nuts."
    assert {h["memory_id"] for h in history} == {added["id"]}
    assert all(h["user_id"] == "alice" and h["created_at"] for h in history)


def test_get_all_pages(stack: Stack) -> None:
    client = stack.client("t-pages")
    for text in ("I own a red bike.", "I own a blue kayak.", "I own a green tent."):
        client.add(text, user_id="alice", infer=False)
    first = client.get_all(filters={"user_id": "alice"}, page=1, page_size=2)
    assert first["count"] == 3 and len(first["results"]) == 2
    assert first["next"] and "page=2" in first["next"] and first["previous"] is None
    second = client.get_all(filters={"user_id": "alice"}, page=2, page_size=2)
    assert len(second["results"]) == 1 and second["next"] is None and second["previous"]


def test_delete_and_delete_all(stack: Stack) -> None:
    client = stack.client("t-delete")
    [one] = client.add("I like jazz.", user_id="alice", infer=False)["results"]
    client.add("I like hiking.", user_id="alice", infer=False)
    client.add("I like opera.", user_id="bob", infer=False)

    assert client.delete(one["id"]) == {"message": "Memory deleted successfully!"}
    with pytest.raises(stack.mem0.exceptions.MemoryNotFoundError):
        client.get(one["id"])
    history = client.history(one["id"])  # the tombstone stays, the text does not
    assert history[-1]["event"] == "DELETE" and all(h["new_memory"] is None for h in history)
    assert _texts(client.get_all(filters={"user_id": "alice"})) == ["I like hiking."]

    assert client.delete_all(user_id="alice") == {"message": "Memories deleted successfully!"}
    assert client.get_all(filters={"user_id": "alice"})["count"] == 0
    assert client.get_all(filters={"user_id": "bob"})["count"] == 1
    # mem0ai's typed options put the filters in the query string (as a Python repr)
    options = stack.mem0.client.types.DeleteAllMemoryOptions(filters={"user_id": "bob"})
    client.delete_all(options)
    assert client.get_all(filters={"user_id": "bob"})["count"] == 0


def test_tenants_never_mix(stack: Stack) -> None:
    a, b = stack.client("t-iso-a"), stack.client("t-iso-b")
    [mine] = a.add("I am vegan.", user_id="alice", infer=False)["results"]
    b.add("I love steak.", user_id="alice", infer=False)

    assert _texts(a.get_all(filters={"user_id": "alice"})) == ["I am vegan."]
    assert _texts(b.get_all(filters={"user_id": "alice"})) == ["I love steak."]
    assert "I am vegan." not in _texts(b.search("vegan", filters={"user_id": "alice"}))
    not_found = stack.mem0.exceptions.MemoryNotFoundError
    for call in (
        lambda: b.get(mine["id"]),
        lambda: b.update(mine["id"], text="alice eats meat."),
        lambda: b.history(mine["id"]),
        lambda: b.delete(mine["id"]),
    ):
        with pytest.raises(not_found):
            call()
    b.delete_all(user_id="alice")
    assert b.get_all(filters={"user_id": "alice"})["count"] == 0
    assert _texts(a.get_all(filters={"user_id": "alice"})) == ["I am vegan."]
    assert a.get(mine["id"])["memory"] == "I am vegan."


def test_async_mode_stores_the_turns_and_a_job_extracts(stack: Stack) -> None:
    client = stack.client("t-async")
    out = client.add("I am allergic to shellfish.", user_id="alice", async_mode=True)
    assert out["status"] == "PENDING" and out["results"] == []
    assert stack.app.state.jobs.wait(30)
    [memory] = client.get_all(filters={"user_id": "alice"})["results"]
    assert "shellfish" in memory["memory"]


def test_the_async_client_sends_the_same_requests(stack: Stack) -> None:
    client = stack.mem0.AsyncMemoryClient(api_key=stack.key("t-asyncio"), host=stack.base)

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        added = await client.add("I am allergic to kiwi.", user_id="alice", infer=False)
        hits = await client.search("kiwi", filters={"user_id": "alice"})
        listed = await client.get_all(filters={"user_id": "alice"})
        return added, hits, listed

    added, hits, listed = asyncio.run(scenario())
    assert added["results"][0]["event"] == "ADD"
    assert _texts(hits) == _texts(listed) == ["I am allergic to kiwi."]


# -- errors over plain HTTP -----------------------------------------------------------------


def _post(stack: Stack, path: str, body: dict[str, Any], key: str | None) -> httpx.Response:
    headers = {"Authorization": f"Token {key}"} if key else {}
    return httpx.post(stack.base + path, json=body, headers=headers, timeout=30)


def _error(r: httpx.Response, status: int, code: str, *words: str) -> None:
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == code and error["request_id"]
    assert r.json()["detail"] == error["message"]  # where mem0's client reads it
    for word in words:
        assert word in error["message"], error["message"]


def test_unsupported_filters_and_parameters_are_a_400_naming_them(stack: Stack) -> None:
    key = stack.key("t-http")
    search = "/v3/memories/search/"
    for filters, word in (
        ({"AND": [{"user_id": "alice"}, {"created_at": {"gte": "2024-01-01"}}]}, "created_at"),
        ({"OR": [{"user_id": "alice"}, {"user_id": "bob"}]}, "OR"),
        ({"user_id": "alice", "app_id": "shop"}, "app_id"),
        ({"user_id": {"in": ["alice", "bob"]}}, "user_id"),
        ({"user_id": "alice", "colour": "red"}, "colour"),
        ({"AND": [{"user_id": "alice"}, {"categories": {"in": ["food"]}}]}, "food"),
        ({"agent_id": "bot"}, "user_id"),
    ):
        r = _post(stack, search, {"query": "x", "filters": filters}, key)
        _error(r, 400, "invalid_input", word)
    body = {"query": "x", "filters": {"user_id": "alice"}, "threshold": 0.3}
    _error(_post(stack, search, body, key), 400, "invalid_input", "threshold")
    add = {"messages": [{"role": "user", "content": "hi"}], "user_id": "alice"}
    extra = {**add, "custom_instructions": "be brief"}
    _error(
        _post(stack, "/v3/memories/add/", extra, key), 400, "invalid_input", "custom_instructions"
    )
    r = httpx.delete(
        stack.base + "/v1/memories/",
        params={"agent_id": "bot"},
        headers={"Authorization": f"Token {key}"},
    )
    _error(r, 400, "invalid_input", "user_id")


def test_bad_input_is_a_4xx_never_a_500(stack: Stack) -> None:
    key = stack.key("t-bad")
    cases = [
        ("/v3/memories/add/", {"messages": [{"role": "user", "content": "hi"}]}, 400),
        ("/v3/memories/add/", {"messages": [], "user_id": "alice"}, 422),
        (
            "/v3/memories/add/",
            {"messages": [{"content": "hi"}], "user_id": "a", "timestamp": 1e30},
            400,
        ),
        ("/v3/memories/add/", {"messages": [{"content": "hi"}], "user_id": "a\x00b"}, 400),
        ("/v3/memories/", {"filters": {"AND": "alice"}}, 400),
        ("/v3/memories/", {"filters": {"user_id": "*"}}, 400),
        ("/v3/memories/search/", {"query": "   ", "filters": {"user_id": "alice"}}, 400),
        ("/v3/memories/search/", {"query": "x", "filters": {"user_id": "a"}, "top_k": 0}, 422),
    ]
    deep: dict[str, Any] = {"user_id": "alice"}
    for _ in range(20):
        deep = {"AND": [deep]}
    cases.append(("/v3/memories/search/", {"query": "x", "filters": deep}, 400))
    for path, body, status in cases:
        r = _post(stack, path, body, key)
        assert r.status_code == status, (path, body, r.text)
        assert r.json()["error"]["message"]
    headers = {"Authorization": f"Token {key}"}
    r = httpx.get(stack.base + "/v1/memories/" + "x" * 300 + "/", headers=headers)
    assert r.status_code == 404
    r = httpx.delete(stack.base + "/v1/memories/", params={"filters": "[1"}, headers=headers)
    assert r.status_code == 400


def test_no_key_is_a_401_in_the_service_envelope(stack: Stack) -> None:
    body = {"messages": [{"role": "user", "content": "hi"}], "user_id": "alice"}
    _error(_post(stack, "/v3/memories/add/", body, None), 401, "unauthorized", "no API key")
    _error(httpx.get(stack.base + "/v1/ping/"), 401, "unauthorized")
    _error(_post(stack, "/v3/memories/add/", body, "lm_x_y"), 401, "unauthorized", "not valid")


def test_the_openapi_schema_describes_the_mem0_routes(stack: Stack) -> None:
    paths = stack.app.openapi()["paths"]
    routes = {
        ("get", "/v1/ping/"),
        ("post", "/v3/memories/add/"),
        ("post", "/v3/memories/"),
        ("post", "/v3/memories/search/"),
        ("get", "/v1/memories/{memory_id}/"),
        ("put", "/v1/memories/{memory_id}/"),
        ("delete", "/v1/memories/{memory_id}/"),
        ("delete", "/v1/memories/"),
        ("get", "/v1/memories/{memory_id}/history/"),
    }
    for method, path in routes:
        op = paths[path][method]
        assert op["tags"] == ["mem0"], (method, path)
        assert {"200", "400", "401", "404", "422"} <= set(op["responses"]), (method, path)
    assert "requestBody" in paths["/v3/memories/add/"]["post"]
