"""mem0-compatible routes: the paths, bodies and responses of mem0's platform API, as the
official ``mem0ai`` 2.x client (``MemoryClient(api_key=..., host=...)``) sends and reads
them, over the same tenants, keys and memories as the native ``/v1/users/...`` API.

    GET    /v1/ping/                      MemoryClient(...)   the key's check
    POST   /v3/memories/add/              add
    POST   /v3/memories/                  get_all             paginated
    POST   /v3/memories/search/           search
    GET    /v1/memories/{id}/             get
    PUT    /v1/memories/{id}/             update
    DELETE /v1/memories/{id}/             delete
    DELETE /v1/memories/                  delete_all          filters in the query string
    GET    /v1/memories/{id}/history/     history

Every route is scoped by the request's tenant; a memory id of another tenant is not
found (404). mem0's filters are translated where they mean something in logicmem (user,
agent and run ids, categories, metadata, memory ids; AND of them); anything else is a
400 that names it, never ignored. Errors keep the service's envelope and add mem0's
``detail`` field, so the client's exceptions carry the message. See docs/mem0.md.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Query, Request, Response
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field

from logicmem.errors import InputError, NotFoundError
from logicmem.service.metrics import Metrics
from logicmem.service.tenancy import TenantMemory
from logicmem.store.base import Store
from logicmem.store.sql import SQLStore
from logicmem.types import CATEGORIES, AddResult, MemoryEntry

ANY = "*"  # mem0's wildcard: any non-null value of the field
MAX_ID = 200
MAX_DEPTH = 8
MAX_K = 1_000
MAX_PAGE_SIZE = 1_000
ENTITY_KEYS = ("user_id", "agent_id", "run_id")
DOCS = "see docs/mem0.md"

# -- request bodies -------------------------------------------------------------------------


class Mem0Body(BaseModel):
    """A mem0 request body. Parameters logicmem has no equivalent for are accepted by the
    schema so the answer can name them: any of them that is not null is refused with 400."""

    model_config = ConfigDict(extra="allow")


class Mem0Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant", "system"] = "user"
    content: str = Field(max_length=100_000)
    name: str | None = Field(default=None, min_length=1, max_length=MAX_ID)


EntityId = Field(default=None, min_length=1, max_length=MAX_ID)


class Mem0AddBody(Mem0Body):
    messages: list[Mem0Message] = Field(min_length=1, max_length=1_000)
    user_id: str | None = EntityId
    agent_id: str | None = EntityId
    run_id: str | None = EntityId
    app_id: str | None = Field(default=None, description="not supported: refused with 400")
    filters: dict[str, Any] | None = Field(
        default=None, description="the entity ids, as mem0ai's AddMemoryOptions sends them"
    )
    metadata: dict[str, Any] | None = Field(
        default=None, description="kept with the turns; shown in each memory's metadata"
    )
    infer: bool = Field(default=True, description="false: store the user's text verbatim")
    async_mode: bool = Field(
        default=False,
        description="true: return once the turns are stored (status PENDING); memories are "
        "extracted by a background job",
    )
    timestamp: int | float | None = Field(
        default=None, description="when it was said, Unix seconds"
    )
    output_format: Literal["v1.1"] | None = Field(
        default=None, description="accepted; the only format served"
    )
    version: Literal["v1", "v2"] | None = Field(default=None, description="accepted; no effect")


class Mem0SearchBody(Mem0Body):
    query: str = Field(min_length=1, max_length=10_000)
    filters: dict[str, Any] | None = None
    top_k: int = Field(default=10, ge=1, le=MAX_K)
    categories: list[str] | None = Field(default=None, max_length=len(CATEGORIES))
    metadata: dict[str, Any] | None = Field(default=None, description="metadata equality")
    fields: list[str] | None = Field(
        default=None, max_length=20, description="return only these fields of each result"
    )
    keyword_search: bool | None = Field(
        default=None, description="false: dense retrieval only; default: hybrid"
    )
    rerank: bool | None = Field(default=None, description="only false is supported")
    latest_only: bool | None = Field(default=None, description="only true is supported")
    show_expired: bool | None = Field(default=None, description="accepted: nothing expires")
    user_id: str | None = EntityId
    agent_id: str | None = EntityId
    run_id: str | None = EntityId


class Mem0ListBody(Mem0Body):
    filters: dict[str, Any] | None = None
    categories: list[str] | None = Field(default=None, max_length=len(CATEGORIES))
    latest_only: bool | None = Field(
        default=None, description="false: also the memories replaced since (superseded)"
    )
    show_expired: bool | None = Field(default=None, description="accepted: nothing expires")
    user_id: str | None = EntityId
    agent_id: str | None = EntityId
    run_id: str | None = EntityId


class Mem0UpdateBody(Mem0Body):
    text: str | None = Field(default=None, max_length=100_000)
    metadata: dict[str, Any] | None = Field(
        default=None, description="merged into the memory's metadata"
    )
    expiration_date: str | None = Field(
        default=None, description="only null is supported: nothing expires"
    )


# -- responses ------------------------------------------------------------------------------


class Mem0Ping(BaseModel):
    status: str
    message: str
    org_id: str = Field(description="the key's tenant")
    project_id: str = Field(description="the key's tenant")
    user_email: str | None
    key_id: str


class Mem0Memory(BaseModel):
    id: str
    memory: str
    hash: str = Field(description="MD5 of the memory text")
    user_id: str
    agent_id: str | None
    app_id: str | None = Field(description="always null: logicmem has no apps")
    run_id: str | None
    metadata: dict[str, Any] = Field(
        description="the metadata of the turns it comes from, then the memory's own"
    )
    categories: list[str] = Field(description="logicmem's category of the memory")
    created_at: str
    updated_at: str
    expiration_date: str | None = Field(description="always null: nothing expires")


class Mem0Updated(Mem0Memory):
    text: str = Field(description="the memory text (mem0's update answers with 'text')")


class Mem0SearchHit(BaseModel):
    """A search result: a memory and its score (only ``fields`` when those are asked)."""

    id: str | None = None
    memory: str | None = None
    hash: str | None = None
    user_id: str | None = None
    agent_id: str | None = None
    app_id: str | None = None
    run_id: str | None = None
    metadata: dict[str, Any] | None = None
    categories: list[str] | None = None
    created_at: str | None = None
    updated_at: str | None = None
    expiration_date: str | None = None
    score: float | None = Field(default=None, description="logicmem's hybrid score")


class Mem0SearchOut(BaseModel):
    results: list[Mem0SearchHit]


class Mem0Page(BaseModel):
    count: int
    next: str | None
    previous: str | None
    results: list[Mem0Memory]


class Mem0AddEvent(BaseModel):
    id: str
    memory: str
    event: Literal["ADD", "UPDATE", "DELETE"]
    data: dict[str, str] = Field(description="{'memory': text}, as mem0's platform sends")
    previous_memory: str | None = None
    superseded_by: str | None = Field(
        default=None, description="DELETE of a replaced memory: the memory that replaced it"
    )


class Mem0AddOut(BaseModel):
    results: list[Mem0AddEvent]
    status: Literal["SUCCEEDED", "PENDING"]
    message: str
    event_id: str | None = Field(description="always null: there is no event to poll")


class Mem0HistoryEntry(BaseModel):
    id: str
    memory_id: str
    input: list[dict[str, Any]] = Field(description="always empty")
    old_memory: str | None
    new_memory: str | None
    user_id: str
    event: Literal["ADD", "UPDATE", "DELETE"]
    metadata: dict[str, Any] = Field(description="logicmem's event and its detail")
    created_at: str
    updated_at: str


class Mem0Done(BaseModel):
    message: str


# -- filters --------------------------------------------------------------------------------


@dataclass
class Selection:
    """What a mem0 request selects, in logicmem's terms."""

    user_id: str | None = None
    agent_id: str | None = None  # an id, or ANY (any non-null)
    run_id: str | None = None
    categories: set[str] | None = None
    metadata: list[tuple[str, Any]] = field(default_factory=list)
    memory_ids: set[str] | None = None

    def entity(self, key: str, value: Any, where: str) -> None:
        if not isinstance(value, str) or not value.strip():
            raise InputError(
                f"{where}: {key} must be an id (a string) or '*'; comparison operators "
                f"('in', 'ne'...) on {key} are not supported ({DOCS})"
            )
        if len(value) > MAX_ID or "\x00" in value:
            raise InputError(f"{where}: {key} must be at most {MAX_ID} plain characters")
        current = getattr(self, key)
        if current is not None and current != value:
            raise InputError(
                f"{key} is given twice, as {current!r} and {value!r}: conditions are combined "
                "with AND, so no memory could match; OR is not supported"
            )
        setattr(self, key, value)

    def add_categories(self, values: set[str]) -> None:
        unknown = sorted(v for v in values if v not in CATEGORIES)
        if unknown:
            raise InputError(
                f"unknown categories {unknown}: logicmem's categories are {', '.join(CATEGORIES)}"
            )
        self.categories = values if self.categories is None else self.categories & values

    def add_ids(self, values: set[str]) -> None:
        self.memory_ids = values if self.memory_ids is None else self.memory_ids & values

    def scope(self) -> dict[str, str | None]:
        """The agent and run of logicmem's scope (a wildcard is checked per memory)."""
        return {
            "agent_id": None if self.agent_id == ANY else self.agent_id,
            "run_id": None if self.run_id == ANY else self.run_id,
        }

    def filters_per_memory(self) -> bool:
        """Whether some condition is checked per memory (not by logicmem's own filters)."""
        return (
            ANY in (self.agent_id, self.run_id)
            or bool(self.metadata)
            or (self.memory_ids is not None)
        )

    def matches(self, entry: MemoryEntry, metadata: dict[str, Any]) -> bool:
        if self.agent_id == ANY and entry.agent_id is None:
            return False
        if self.run_id == ANY and entry.run_id is None:
            return False
        if self.categories is not None and entry.category not in self.categories:
            return False
        if self.memory_ids is not None and entry.id not in self.memory_ids:
            return False
        return all(key in metadata and metadata[key] == want for key, want in self.metadata)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _strings(value: Any, where: str) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return set(value)
    raise InputError(f"{where} must be a string or a non-empty list of strings")


def _categories(value: Any, where: str) -> set[str]:
    if isinstance(value, dict):
        if len(value) != 1 or next(iter(value)) not in ("in", "contains"):
            raise InputError(
                f"{where}: only {{'in': [...]}} and {{'contains': '...'}} are supported on "
                f"categories, not {_short(value)}"
            )
        op, arg = next(iter(value.items()))
        return _strings(arg, f"{where}.{op}")
    return _strings(value, where)


def _memory_ids(value: Any, where: str) -> set[str]:
    if isinstance(value, dict):
        if set(value) != {"in"}:
            raise InputError(f"{where}: only {{'in': [...]}} is supported on memory_ids")
        value = value["in"]
    return _strings(value, where)


UNSUPPORTED_FILTERS = {
    "app_id": "logicmem has no apps: scope memories by user_id, agent_id and run_id",
    "created_at": "filter on time is not supported",
    "updated_at": "filter on time is not supported",
    "timestamp": "filter on time is not supported",
    "keywords": "use the search query instead (logicmem's search is keyword + dense)",
}


def parse_filters(node: Any, sel: Selection, where: str = "filters", depth: int = 0) -> None:
    """Add mem0's v2 ``filters`` to ``sel``: ``{"AND": [...]}`` and plain conditions."""
    if depth > MAX_DEPTH:
        raise InputError(f"{where}: filters nested deeper than {MAX_DEPTH} levels")
    if not isinstance(node, dict):
        raise InputError(f"{where} must be an object, for example {{'user_id': 'alice'}}")
    for key, value in node.items():
        at = f"{where}.{key}"
        if key == "AND":
            if not isinstance(value, list):
                raise InputError(f"{at} must be a list of conditions")
            for i, condition in enumerate(value):
                parse_filters(condition, sel, f"{at}[{i}]", depth + 1)
        elif key in ("OR", "NOT"):
            raise InputError(
                f"filter {key!r} ({at}) is not supported: logicmem combines conditions with "
                "AND only; send one request per alternative"
            )
        elif key in ENTITY_KEYS:
            sel.entity(key, value, at)
        elif key == "categories":
            sel.add_categories(_categories(value, at))
        elif key == "memory_ids":
            sel.add_ids(_memory_ids(value, at))
        elif key == "metadata":
            if not isinstance(value, dict) or not value:
                raise InputError(f"{at} must be a non-empty object of key: value")
            for name, want in value.items():
                if isinstance(want, dict | list):
                    raise InputError(
                        f"{at}.{name}: only equality to a value is supported on metadata, "
                        f"not {_short(want)}"
                    )
                sel.metadata.append((name, want))
        elif key in UNSUPPORTED_FILTERS:
            raise InputError(f"filter {key!r} ({at}) is not supported: {UNSUPPORTED_FILTERS[key]}")
        else:
            raise InputError(
                f"filter {key!r} ({at}) is not supported: logicmem maps user_id, agent_id, "
                f"run_id, categories, metadata and memory_ids, combined with AND ({DOCS})"
            )


def _selection(
    filters: dict[str, Any] | None, top: dict[str, str | None], where: str = "filters"
) -> Selection:
    sel = Selection()
    for key, value in top.items():
        if value is not None:
            sel.entity(key, value, key)
    if filters is not None:
        parse_filters(filters, sel, where)
    return sel


def _one_user(sel: Selection) -> str:
    if sel.user_id is None:
        raise InputError(
            "no user_id: logicmem keeps every memory under a user, so pass "
            "filters={'user_id': '...'}"
        )
    if sel.user_id == ANY:
        raise InputError("user_id '*' is not supported here: name one user")
    return sel.user_id


def _refuse(extra: dict[str, Any] | None, reasons: dict[str, str] | None = None) -> None:
    """A 400 naming the given parameters logicmem has no equivalent for."""
    given = {k: v for k, v in (extra or {}).items() if v is not None}
    if not given:
        return
    reasons = reasons or {}
    parts = [f"{k!r} ({reasons[k]})" if k in reasons else repr(k) for k in sorted(given)]
    raise InputError(f"not supported by logicmem's mem0 API: {', '.join(parts)} ({DOCS})")


# -- memories as mem0 shows them ------------------------------------------------------------


def _md5(text: str) -> str:
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()


def _metadata(t: TenantMemory, entry: MemoryEntry) -> dict[str, Any]:
    """The memory's metadata (the add's own included: the write path keeps it on the
    memories it extracts), the tenant prefix stripped."""
    return {
        k: v[len(t.prefix) :] if isinstance(v, str) and v.startswith(t.prefix) else v
        for k, v in entry.metadata.items()
    }


def _memory(t: TenantMemory, entry: MemoryEntry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "memory": entry.text,
        "hash": _md5(entry.text),
        "user_id": t.outer({"user_id": entry.user_id})["user_id"],
        "agent_id": entry.agent_id,
        "app_id": None,
        "run_id": entry.run_id,
        "metadata": _metadata(t, entry),
        "categories": [entry.category],
        "created_at": entry.created_at,
        "updated_at": entry.updated_at,
        "expiration_date": None,
    }


def _check_memory_id(memory_id: str) -> None:
    if not memory_id or len(memory_id) > MAX_ID or "\x00" in memory_id:
        raise NotFoundError(f"no memory with id {_short(memory_id)}")


def _owner(t: TenantMemory, memory_id: str) -> str:
    """The (tenant's) user a memory id belongs to; another tenant's id is not found."""
    _check_memory_id(memory_id)
    store = t.memory.store
    entry = store.get_memory(memory_id)
    user = entry.user_id if entry is not None else _history_owner(store, memory_id)
    if user is None or not user.startswith(t.prefix):
        raise NotFoundError(f"no memory with id {memory_id!r}")
    return user[len(t.prefix) :]


def _history_owner(store: Store, memory_id: str) -> str | None:
    """The owner of a deleted memory, from its history (which keeps a tombstone)."""
    if not isinstance(store, SQLStore):
        return None
    with store.errors():
        row = store.db.execute(
            "SELECT user_id FROM history WHERE memory_id = ? LIMIT 1", (memory_id,)
        ).fetchone()
    return None if row is None else str(row["user_id"])


def _events(t: TenantMemory, result: AddResult) -> list[dict[str, Any]]:
    """mem0's add events: added -> ADD; merged (a repeat: its sources grew) -> UPDATE;
    superseded (replaced or retracted by what was added) -> DELETE."""
    out: list[dict[str, Any]] = []
    for e in result.added:
        out.append({"id": e.id, "memory": e.text, "event": "ADD", "data": {"memory": e.text}})
    store = t.memory.store
    for memory_id in dict.fromkeys(result.merged):
        entry = store.get_memory(memory_id)
        if entry is not None:
            out.append(
                {
                    "id": entry.id,
                    "memory": entry.text,
                    "event": "UPDATE",
                    "data": {"memory": entry.text},
                    "previous_memory": entry.text,
                }
            )
    for memory_id in dict.fromkeys(result.superseded):
        entry = store.get_memory(memory_id)
        if entry is not None:
            out.append(
                {
                    "id": entry.id,
                    "memory": entry.text,
                    "event": "DELETE",
                    "data": {"memory": entry.text},
                    "superseded_by": entry.superseded_by,
                }
            )
    return out


HISTORY_EVENTS = {
    "ADD": "ADD",
    "UPDATE": "UPDATE",
    "MERGE": "UPDATE",  # a repeat: the text stays, the sources grow
    "SUPERSEDE": "DELETE",  # replaced by a newer statement: no longer current
    "RETRACT": "DELETE",  # ended by a retraction: no longer current
    "DELETE": "DELETE",
}


def _when(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    try:
        return datetime.fromtimestamp(timestamp, tz=UTC).isoformat()
    except (OverflowError, OSError, ValueError) as exc:
        raise InputError(f"timestamp {timestamp!r} is not a Unix time in seconds") from exc


def _filters_param(raw: str | None) -> dict[str, Any] | None:
    """``filters`` in a query string: JSON, or the Python repr mem0ai's client sends."""
    if raw is None:
        return None
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(raw)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    raise InputError('the \'filters\' query parameter must be an object such as {"user_id": "x"}')


# -- errors in mem0's shape -----------------------------------------------------------------


class Mem0Route(APIRoute):
    """Errors keep the service's envelope and add ``detail`` (the message), where mem0's
    client looks for it: its exceptions then carry logicmem's message."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def route(request: Request) -> Response:
            try:
                return await handle(request)
            except Exception as exc:
                respond = _handler_for(request, exc)
                if respond is None:
                    raise
                response = respond(request, exc)
                if inspect.isawaitable(response):
                    response = await response
                return _with_detail(response)

        return route


def _handler_for(request: Request, exc: Exception) -> Callable[..., Any] | None:
    handlers = request.app.exception_handlers
    for cls in type(exc).__mro__:
        if cls is Exception:
            return None  # a bug: the service's 500 handler logs and answers it
        if cls in handlers:
            return handlers[cls]
    return None


def _with_detail(response: Response) -> Response:
    try:
        body = json.loads(bytes(response.body))
    except (ValueError, TypeError):
        return response
    if not isinstance(body, dict) or not isinstance(body.get("error"), dict):
        return response
    body["detail"] = body["error"].get("message", "")
    headers = {
        k: v
        for k, v in response.headers.items()
        if k.lower() not in ("content-length", "content-type")
    }
    return JSONResponse(body, status_code=response.status_code, headers=headers)


# -- the routes -----------------------------------------------------------------------------


def mount(
    app: FastAPI, *, tenant: Callable[..., Any], principal: Callable[..., Any], metrics: Metrics
) -> None:
    """Add the mem0-compatible routes to ``app``."""
    router = APIRouter(tags=["mem0"], route_class=Mem0Route)

    @router.get("/v1/ping/", response_model=Mem0Ping)
    def ping(key: Any = Depends(principal), t: TenantMemory = Depends(tenant)) -> Any:
        """The key's check that ``MemoryClient(...)`` makes on construction."""
        return {
            "status": "ok",
            "message": "logicmem: the key is valid",
            "org_id": t.tenant,
            "project_id": t.tenant,
            "user_email": None,
            "key_id": key.key_id,
        }

    @router.post("/v3/memories/add/", response_model=Mem0AddOut)
    def add(body: Mem0AddBody, t: TenantMemory = Depends(tenant)) -> Any:
        """Add messages: logicmem stores the turns, then extracts memories from them; with
        ``async_mode`` a background job extracts them after the response."""
        _refuse(body.model_extra)
        if body.app_id is not None:
            raise InputError(f"'app_id' is not supported: {UNSUPPORTED_FILTERS['app_id']}")
        top = {k: getattr(body, k) for k in ENTITY_KEYS}
        sel = _selection(body.filters, top)
        if sel.categories or sel.metadata or sel.memory_ids is not None:
            raise InputError("add takes only user_id, agent_id and run_id in 'filters'")
        user_id = _one_user(sel)
        if ANY in (sel.agent_id, sel.run_id):
            raise InputError("'*' names no agent or run to add to: pass an id")
        messages = [m.model_dump(exclude_none=True) for m in body.messages]
        result = t.add(
            messages,
            user_id=user_id,
            timestamp=_when(body.timestamp),
            metadata=body.metadata,
            infer=body.infer,
            agent_id=sel.agent_id,
            run_id=sel.run_id,
            defer=body.async_mode,
        )
        if result.failures:
            metrics.extraction_failures.inc(result.failures)
        deferred = bool(body.async_mode and result.turns)
        app.state.after_add(t.inner(user_id), stored=bool(result.turns), deferred=deferred)
        if deferred:
            return {
                "results": [],
                "status": "PENDING",
                "message": "the messages are stored; a background job extracts the memories",
                "event_id": None,
            }
        return {
            "results": _events(t, result),
            "status": "SUCCEEDED",
            "message": f"{len(result.turns)} turns stored, memories extracted",
            "event_id": None,
        }

    @router.post("/v3/memories/", response_model=Mem0Page)
    def get_all(
        body: Mem0ListBody,
        request: Request,
        page: int = Query(default=1, ge=1, le=1_000_000),
        page_size: int = Query(default=100, ge=1, le=MAX_PAGE_SIZE),
        t: TenantMemory = Depends(tenant),
    ) -> Any:
        """The user's memories (valid now, in the order stored), a page at a time."""
        _refuse(
            body.model_extra,
            {"start_date": "filter on time", "end_date": "filter on time"},
        )
        sel = _selection(body.filters, {k: getattr(body, k) for k in ENTITY_KEYS})
        if body.categories is not None:
            sel.add_categories(_strings(body.categories, "categories"))
        user_id = _one_user(sel)
        entries = t.get_all(
            user_id=user_id, include_superseded=body.latest_only is False, **sel.scope()
        )
        chosen = [e for e in entries if sel.matches(e, _metadata(t, e))]
        start = (page - 1) * page_size
        window = chosen[start : start + page_size]

        def link(n: int) -> str:
            return str(request.url.include_query_params(page=n, page_size=page_size))

        return {
            "count": len(chosen),
            "next": link(page + 1) if start + page_size < len(chosen) else None,
            "previous": link(page - 1) if page > 1 else None,
            "results": [_memory(t, e) for e in window],
        }

    @router.post(
        "/v3/memories/search/", response_model=Mem0SearchOut, response_model_exclude_unset=True
    )
    def search(body: Mem0SearchBody, t: TenantMemory = Depends(tenant)) -> Any:
        """The user's memories for a query, best first, by logicmem's hybrid retrieval."""
        _refuse(
            body.model_extra,
            {
                "threshold": "logicmem's scores are not mem0's similarities",
                "reference_date": "relative dates are not resolved",
            },
        )
        if body.rerank:
            raise InputError("'rerank' is not supported: logicmem has no reranker")
        if body.latest_only is False:
            raise InputError("'latest_only': false is not supported: search reads what is true now")
        wanted = body.fields
        if wanted is not None:
            unknown = sorted(set(wanted) - set(Mem0SearchHit.model_fields))
            if unknown:
                known = ", ".join(Mem0SearchHit.model_fields)
                raise InputError(f"unknown fields {unknown}: choose among {known}")
        sel = _selection(body.filters, {k: getattr(body, k) for k in ENTITY_KEYS})
        if body.categories is not None:
            sel.add_categories(_strings(body.categories, "categories"))
        for name, want in (body.metadata or {}).items():
            sel.metadata.append((name, want))
        user_id = _one_user(sel)
        scope = sel.scope()
        store = t.memory.store
        k, allowed = body.top_k, None
        if sel.filters_per_memory():
            every = t.get_all(user_id=user_id, **scope)
            allowed = {e.id for e in every if sel.matches(e, _metadata(t, e))}
            if not allowed:
                return {"results": []}
            k = len(every)  # rank them all, keep the best allowed
        categories = sorted(sel.categories) if sel.categories is not None else None
        result = t.search(
            body.query,
            user_id=user_id,
            k=k,
            method="dense" if body.keyword_search is False else "hybrid",
            filters={"category": categories} if categories is not None else None,
            **scope,
        )
        hits = [h for h in result.hits if allowed is None or h.id in allowed][: body.top_k]
        entries = store.get_memories([h.id for h in hits])
        items = []
        for hit in hits:
            entry = entries.get(hit.id)
            if entry is None or not entry.user_id.startswith(t.prefix):
                continue
            item = {**_memory(t, entry), "score": hit.score}
            if wanted is not None:
                item = {name: item[name] for name in wanted}
            items.append(item)
        return {"results": items}

    @router.get("/v1/memories/{memory_id}/", response_model=Mem0Memory)
    def get(memory_id: str, t: TenantMemory = Depends(tenant)) -> Any:
        """One memory by id (another tenant's id: 404)."""
        entry = t.get(memory_id, user_id=_owner(t, memory_id))
        return _memory(t, entry)

    @router.put("/v1/memories/{memory_id}/", response_model=Mem0Updated)
    def update(memory_id: str, body: Mem0UpdateBody, t: TenantMemory = Depends(tenant)) -> Any:
        """Change a memory's text and/or metadata (its history keeps the old text)."""
        _refuse(body.model_extra, {"timestamp": "when a memory was said is not changed"})
        if body.expiration_date is not None:
            raise InputError("'expiration_date' is not supported: logicmem memories do not expire")
        if body.text is None and body.metadata is None:
            raise InputError("pass 'text' and/or 'metadata' to update")
        user_id = _owner(t, memory_id)
        current = t.get(memory_id, user_id=user_id)
        entry = t.update(
            memory_id,
            current.text if body.text is None else body.text,
            user_id=user_id,
            metadata=body.metadata,
        )
        out = _memory(t, entry)
        return {**out, "text": entry.text}

    @router.delete("/v1/memories/{memory_id}/", response_model=Mem0Done)
    def delete(
        memory_id: str,
        delete_linked: bool = Query(
            default=False, description="also the memories this one replaced, transitively"
        ),
        t: TenantMemory = Depends(tenant),
    ) -> Any:
        """Remove a memory's text everywhere (its history keeps a tombstone)."""
        user_id = _owner(t, memory_id)
        t.get(memory_id, user_id=user_id)  # 404 when already deleted
        doomed = [memory_id]
        if delete_linked:
            closed_by: dict[str, list[str]] = {}
            for m in t.get_all(user_id=user_id, include_superseded=True):
                if m.superseded_by:
                    closed_by.setdefault(m.superseded_by, []).append(m.id)
            todo = [memory_id]
            while todo:
                for older in closed_by.get(todo.pop(), []):
                    if older not in doomed:
                        doomed.append(older)
                        todo.append(older)
        for victim in doomed:
            t.delete(victim, user_id=user_id)
        return {"message": "Memory deleted successfully!"}

    @router.delete("/v1/memories/", response_model=Mem0Done)
    def delete_all(
        request: Request,
        user_id: str | None = Query(default=None, description="'*': every user of the tenant"),
        agent_id: str | None = Query(default=None, description="'*': any agent (non-null)"),
        run_id: str | None = Query(default=None, description="'*': any run (non-null)"),
        filters: str | None = Query(default=None, description="the same ids, as an object"),
        t: TenantMemory = Depends(tenant),
    ) -> Any:
        """Delete memories by user (every trace of the user), or by user and agent/run."""
        known = {"user_id", "agent_id", "run_id", "filters"}
        _refuse(
            {k: v for k, v in request.query_params.items() if k not in known},
            {"app_id": UNSUPPORTED_FILTERS["app_id"]},
        )
        top = {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}
        sel = _selection(_filters_param(filters), top, "filters")
        if sel.categories or sel.metadata or sel.memory_ids is not None:
            raise InputError("delete_all takes only user_id, agent_id and run_id")
        if sel.user_id is None:
            raise InputError(
                "no user_id: logicmem keeps every memory under a user; pass user_id "
                "(or user_id='*' for every user of this tenant)"
            )
        users = t.users() if sel.user_id == ANY else [sel.user_id]
        whole = sel.agent_id is None and sel.run_id is None
        for user in users:
            if whole:
                t.forget(user)  # every trace of the user, as DELETE /v1/users/{user_id}
                continue
            for m in t.get_all(user_id=user, include_superseded=True, **sel.scope()):
                if sel.matches(m, {}):
                    t.delete(m.id, user_id=user)
        return {"message": "Memories deleted successfully!"}

    @router.get("/v1/memories/{memory_id}/history/", response_model=list[Mem0HistoryEntry])
    def history(memory_id: str, t: TenantMemory = Depends(tenant)) -> Any:
        """A memory's changes, oldest first, with mem0's event names."""
        user_id = _owner(t, memory_id)
        rows = t.memory.store.history(memory_id, t.inner(user_id))
        if not rows:
            raise NotFoundError(f"no memory with id {memory_id!r}")
        return [
            {
                "id": f"{memory_id}:{i}",
                "memory_id": memory_id,
                "input": [],
                "old_memory": row.old_text,
                "new_memory": row.new_text,
                "user_id": user_id,
                "event": HISTORY_EVENTS.get(row.event, "UPDATE"),
                "metadata": {"logicmem_event": row.event, "detail": row.detail},
                "created_at": row.at,
                "updated_at": row.at,
            }
            for i, row in enumerate(rows, 1)
        ]

    app.include_router(router)
