"""``logicmem serve``: the memory as an HTTP service (FastAPI), many tenants per store.

Every route but ``/healthz``, ``/readyz`` and ``/metrics`` takes an API key
(``Authorization: Bearer lm_...``, ``Authorization: Token lm_...`` as mem0's client sends
it, or ``X-API-Key``). A tenant key reaches its own tenant's users only; an admin key
manages keys and nothing else. Every response carries ``X-Request-ID``; every error is
``{"error": {"code", "message", "request_id"}}`` with a stable code, and bad input is
always a 4xx.

``create_app()`` builds the app from settings (``LOGICMEM_STORE``, ``LOGICMEM_CONFIG``...),
so ``uvicorn --factory logicmem.service.app:create_app`` serves it too; tests pass a
``Memory`` of their own.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from logicmem import __version__
from logicmem.errors import (
    ConfigError,
    InputError,
    LogicmemError,
    ModelError,
    NotFoundError,
    StoreError,
)
from logicmem.memory import Memory
from logicmem.routes.base import METHODS
from logicmem.service import schemas as s
from logicmem.service.jobs import InProcessJobs, Jobs, pending_users
from logicmem.service.keys import ApiKey, KeyRing
from logicmem.service.metrics import Metrics
from logicmem.service.tenancy import TenantMemory

log = logging.getLogger("logicmem.service")

MAX_BODY_BYTES = 1_048_576
MAX_LIMIT = 1_000_000
REQUEST_ID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")

# error class -> (HTTP status, stable code)
ERROR_CODES: list[tuple[type[Exception], int, str]] = [
    (NotFoundError, 404, "not_found"),
    (InputError, 400, "invalid_input"),
    (ConfigError, 409, "not_configured"),
    (ModelError, 502, "model_unavailable"),
    (StoreError, 503, "store_unavailable"),
]


class ServiceError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class ServiceOptions:
    max_body_bytes: int = MAX_BODY_BYTES


def _settings_limit() -> int:
    from logicmem.config import load_settings

    return load_settings().service.max_body_bytes


def _error_body(request_id: str, code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "request_id": request_id}}


class Guard:
    """Pure ASGI middleware: the request id, the body-size limit and the metrics, before
    any route runs (a body over the limit is refused with 413 before it is parsed)."""

    def __init__(self, app: ASGIApp, *, metrics: Metrics, max_body_bytes: int) -> None:
        self.app, self.metrics, self.max_body = app, metrics, max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        given = headers.get("x-request-id", "")
        request_id = given if REQUEST_ID_RE.match(given) else uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        status_box = [500]

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_box[0] = message["status"]
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode()),
                ]
            await send(message)

        length = headers.get("content-length", "")
        if length and (not length.isdigit() or int(length) > self.max_body):
            await self._too_large(request_id, send_with_id)
        else:
            body, too_large = await self._read(receive)
            if too_large:
                await self._too_large(request_id, send_with_id)
            else:
                await self.app(scope, _replay(body, receive), send_with_id)
        route = scope.get("route")
        template = getattr(route, "path", None) or "unmatched"
        self.metrics.requests.labels(template, scope["method"], str(status_box[0])).inc()
        self.metrics.latency.labels(template, scope["method"]).observe(
            time.perf_counter() - started
        )

    async def _read(self, receive: Receive) -> tuple[bytes, bool]:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return b"", True
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        return b"".join(chunks), False

    async def _too_large(self, request_id: str, send: Send) -> None:
        body = _error_body(
            request_id,
            "payload_too_large",
            f"the request body is over {self.max_body:,} bytes: send fewer or shorter "
            "messages per request",
        )
        response = JSONResponse(body, status_code=413)
        await response({"type": "http"}, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


COMMON_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": s.ErrorOut, "description": text}
    for code, text in (
        (400, "invalid input: the message says what to change"),
        (401, "no API key, or not a valid one"),
        (403, "the key may not do this"),
        (404, "not found for this tenant and user"),
        (409, "not configured on this server (for example no LLM)"),
        (413, "request body too large"),
        (422, "the request does not match the schema"),
        (502, "the configured model server failed"),
        (503, "the store is unreachable"),
    )
}


def consolidates_after_add(memory: Memory) -> bool:
    mode = memory.settings.service.consolidate
    if mode == "auto":
        llm = memory.llm()
        return bool(llm is not None and llm.capable)
    return mode == "after_add"


def create_app(
    memory: Memory | None = None,
    *,
    jobs: Jobs | None = None,
    options: ServiceOptions | None = None,
) -> FastAPI:
    """The service over ``memory`` (default: ``Memory()`` from settings and environment)."""
    metrics = Metrics()
    bearer = HTTPBearer(auto_error=False, description="an API key from `logicmem keys create`")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own = app.state.memory is None
        if own:
            # Pending turns are the background jobs' to extract, not the start's: a start
            # that extracted them inline could take minutes before serving anything.
            app.state.memory = Memory(config={"extract": {"resume_pending": False}})
        # Load weights and train classifiers now, not on the first requests (seconds), for
        # a memory given as for one of its own.
        app.state.memory.warm_up()
        stale = app.state.memory.indexed_otherwise()
        if stale:  # an upgrade or a changed setting: the operator decides when to reindex
            log.warning(
                "%d %s indexed by another version of the rules or settings: "
                "`logicmem reindex --all-users --stale` (or POST /v1/users/{id}/reindex "
                'with {"stale": true}) judges them again',
                stale,
                "memory was" if stale == 1 else "memories were",
            )
        app.state.keys = KeyRing(app.state.memory.store)
        own_jobs = app.state.jobs is None
        if own_jobs:
            from logicmem.service.queue import build_jobs

            app.state.jobs = build_jobs(app.state.memory)
        if isinstance(app.state.jobs, InProcessJobs):
            app.state.jobs.on_done.append(metrics.job_done)
            if own:  # what a killed process left pending, extracted in the background
                for user in pending_users(app.state.memory):
                    app.state.jobs.enqueue("extract", user)
        try:
            yield
        finally:
            if own_jobs:
                app.state.jobs.close()
            if own:
                app.state.memory.close()

    app = FastAPI(
        title="logicmem",
        version=__version__,
        description="Long-term memory for personalized assistants: the memories that decide "
        "an answer, not only those that resemble the request.",
        lifespan=lifespan,
        responses=COMMON_ERRORS,
    )
    app.state.memory = memory
    app.state.jobs = jobs
    app.state.metrics = metrics
    if options is None:  # the limit is read when the first request comes (settings known)
        limit: int | None = memory.settings.service.max_body_bytes if memory else None
        options = ServiceOptions(max_body_bytes=limit or _settings_limit())
    app.add_middleware(Guard, metrics=metrics, max_body_bytes=options.max_body_bytes)

    # -- errors ---------------------------------------------------------------------------
    def rid(request: Request) -> str:
        return str(request.scope.get("state", {}).get("request_id", ""))

    @app.exception_handler(ServiceError)
    async def on_service_error(request: Request, exc: ServiceError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return JSONResponse(
            _error_body(rid(request), exc.code, exc.message), exc.status, headers=headers
        )

    @app.exception_handler(LogicmemError)
    async def on_logicmem_error(request: Request, exc: LogicmemError) -> JSONResponse:
        for cls, status, code in ERROR_CODES:
            if isinstance(exc, cls):
                return JSONResponse(_error_body(rid(request), code, str(exc)), status)
        return JSONResponse(_error_body(rid(request), "invalid_input", str(exc)), 400)

    @app.exception_handler(RequestValidationError)
    async def on_invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for e in exc.errors()[:5]:
            where = ".".join(str(p) for p in e.get("loc", ()))
            problems.append(f"{where}: {e.get('msg', 'invalid')}")
        message = "; ".join(problems) + " (the schema is at /openapi.json)"
        return JSONResponse(_error_body(rid(request), "invalid_request", message), 422)

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        message = {
            404: f"no route {request.url.path}: the routes are listed at /openapi.json",
            405: f"{request.method} is not allowed on {request.url.path}",
        }.get(exc.status_code, str(exc.detail))
        return JSONResponse(_error_body(rid(request), code, message), exc.status_code)

    @app.exception_handler(Exception)
    async def on_bug(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error in %s %s", request.method, request.url.path)
        return JSONResponse(
            _error_body(
                rid(request),
                "internal",
                "an internal error; the server's log has it under this request id",
            ),
            500,
        )

    # -- auth -----------------------------------------------------------------------------
    def principal(request: Request, _: Any = Depends(bearer)) -> ApiKey:
        header = request.headers.get("authorization", "")
        scheme, _, value = header.partition(" ")
        presented = value.strip() if scheme.lower() in ("bearer", "token") else ""
        presented = presented or request.headers.get("x-api-key", "").strip()
        if not presented:
            raise ServiceError(
                401,
                "unauthorized",
                "no API key: send 'Authorization: Bearer <key>'; create a key with "
                "`logicmem keys create --tenant NAME`",
            )
        key = request.app.state.keys.verify(presented)
        if key is None:
            raise ServiceError(401, "unauthorized", "the API key is not valid (unknown or revoked)")
        return key

    def tenant(key: ApiKey = Depends(principal)) -> TenantMemory:
        if key.admin:
            raise ServiceError(
                403,
                "forbidden",
                "an admin key manages keys only: use a tenant's key for its memories",
            )
        return TenantMemory(app.state.memory, key.tenant)

    def admin(key: ApiKey = Depends(principal)) -> ApiKey:
        if not key.admin:
            raise ServiceError(
                403,
                "forbidden",
                "managing keys needs an admin key (`logicmem keys create --admin`)",
            )
        return key

    # -- memory routes --------------------------------------------------------------------
    api = APIRouter(prefix="/v1", tags=["memory"])

    def jobs_of() -> Jobs:
        return app.state.jobs

    def enqueue(task: str, user: str) -> None:
        jobs_of().enqueue(task, user)
        metrics.jobs_enqueued.labels(task).inc()

    def after_add(user: str, *, stored: bool, deferred: bool) -> None:
        """The jobs an add queues (``user``: the store-level id): extraction of deferred
        turns, then consolidation when ``service.consolidate`` says so."""
        if deferred:
            enqueue("extract", user)
        if stored and consolidates_after_add(app.state.memory):
            enqueue("consolidate", user)

    app.state.after_add = after_add

    @api.post("/users/{user_id}/memories", response_model=s.AddOut, status_code=201)
    def add(user_id: str, body: s.AddRequest, t: TenantMemory = Depends(tenant)) -> Any:
        """Add messages (or one text) said by the user: the turns are committed first,
        then memories are extracted (with ``background``, by a job after the response)."""
        if (body.messages is None) == (body.text is None):
            raise InputError("pass either 'messages' (a list) or 'text' (one message), not both")
        messages: Any = (
            body.text
            if body.text is not None
            else [m.model_dump(exclude_none=True) for m in body.messages or []]
        )
        result = t.add(
            messages,
            user_id=user_id,
            session_id=body.session_id,
            timestamp=body.timestamp,
            metadata=body.metadata,
            infer=body.infer,
            agent_id=body.agent_id,
            run_id=body.run_id,
            defer=body.background,
        )
        if result.failures:
            metrics.extraction_failures.inc(result.failures)
        queued = body.background and bool(result.turns)
        after_add(t.inner(user_id), stored=bool(result.turns), deferred=queued)
        return {**t.outer(result.to_dict()), "queued": queued}

    @api.get("/users/{user_id}/memories", response_model=s.MemoryList)
    def list_memories(
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        include_superseded: bool = False,
        limit: int | None = Query(default=None, ge=1, le=MAX_LIMIT),
        as_of: str | None = None,
        t: TenantMemory = Depends(tenant),
    ) -> Any:
        """The user's memories valid now (or at ``as_of``), in the order stored."""
        entries = t.get_all(
            user_id=user_id,
            agent_id=agent_id,
            run_id=run_id,
            include_superseded=include_superseded,
            limit=limit,
            as_of=as_of,
        )
        return {"user_id": user_id, "memories": t.outer([m.to_dict() for m in entries])}

    @api.get("/users/{user_id}/memories/{memory_id}", response_model=s.MemoryOut)
    def get(
        user_id: str,
        memory_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        t: TenantMemory = Depends(tenant),
    ) -> Any:
        entry = t.get(memory_id, user_id=user_id, agent_id=agent_id, run_id=run_id)
        return t.outer(entry.to_dict())

    @api.patch("/users/{user_id}/memories/{memory_id}", response_model=s.MemoryOut)
    def update(
        user_id: str, memory_id: str, body: s.UpdateRequest, t: TenantMemory = Depends(tenant)
    ) -> Any:
        """Change a memory's text (its history keeps the old one)."""
        entry = t.update(
            memory_id,
            body.text,
            user_id=user_id,
            agent_id=body.agent_id,
            run_id=body.run_id,
            metadata=body.metadata,
        )
        return t.outer(entry.to_dict())

    @api.delete("/users/{user_id}/memories/{memory_id}", response_model=s.Deleted)
    def delete(
        user_id: str,
        memory_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        t: TenantMemory = Depends(tenant),
    ) -> Any:
        """Remove the memory's text everywhere (its history keeps a tombstone)."""
        t.delete(memory_id, user_id=user_id, agent_id=agent_id, run_id=run_id)
        return {"id": memory_id, "deleted": True}

    @api.get("/users/{user_id}/memories/{memory_id}/history", response_model=s.HistoryOut)
    def history(user_id: str, memory_id: str, t: TenantMemory = Depends(tenant)) -> Any:
        rows = t.history(memory_id, user_id=user_id)
        return {"memory_id": memory_id, "history": t.outer(rows)}

    @api.post("/users/{user_id}/search", response_model=s.SearchOut)
    def search(user_id: str, body: s.SearchRequest, t: TenantMemory = Depends(tenant)) -> Any:
        """Semantic retrieval only (bm25, dense or hybrid)."""
        if body.method not in METHODS:
            raise InputError(
                f"unknown search method {body.method!r}: choose one of {', '.join(METHODS.names())}"
            )
        result = t.search(body.query, user_id=user_id, **body.model_dump(exclude={"query"}))
        return t.outer(result.to_dict())

    @api.post("/users/{user_id}/context", response_model=s.ContextOut)
    def context(user_id: str, body: s.ContextRequest, t: TenantMemory = Depends(tenant)) -> Any:
        """The budgeted context for a request: every item with the route that chose it and
        why, and the rendered prompt text."""
        ctx = t.context(body.query, user_id=user_id, **body.model_dump(exclude={"query"}))
        return {**t.outer(ctx.to_dict()), "prompt": ctx.render()}

    @api.post("/users/{user_id}/answer", response_model=s.AnswerOut)
    def answer(user_id: str, body: s.AnswerRequest, t: TenantMemory = Depends(tenant)) -> Any:
        """Answer with the configured LLM and the context (409 when none is configured)."""
        result = t.answer(body.query, user_id=user_id, **body.model_dump(exclude={"query"}))
        return t.outer(result.to_dict())

    @api.post("/users/{user_id}/consolidate", responses={202: {"description": "queued"}})
    def consolidate(
        user_id: str,
        body: s.ConsolidateRequest,
        response: Response,
        t: TenantMemory = Depends(tenant),
    ) -> dict[str, Any]:
        """Build root units, rules and the profile from what is new for the user."""
        if body.background:
            if body.only is not None or body.agent_id or body.run_id:
                raise InputError("a background consolidation runs every consolidator: drop 'only'")
            enqueue("consolidate", t.inner(user_id))
            response.status_code = 202
            return {"queued": True}
        return t.consolidate(
            user_id=user_id, only=body.only, agent_id=body.agent_id, run_id=body.run_id
        )

    @api.post(
        "/users/{user_id}/reindex",
        response_model=s.ReindexOut,
        responses={202: {"description": "marked; a job indexes them"}},
    )
    def reindex(
        user_id: str,
        response: Response,
        body: s.ReindexRequest | None = None,
        t: TenantMemory = Depends(tenant),
    ) -> Any:
        """Judge the user's stored memories again with the running version's rules and
        knowledge resource (which are standing constraints, and their keys), as after an
        upgrade; 404 for an unknown user. With ``stale``, only the memories another
        version indexed (those ``GET /v1/stats`` counts). With ``background``, the
        memories are marked now and an extract job indexes them (202); until it reaches a
        memory, the memory keeps its earlier judgement, and a lost job's work is finished
        by the next job, add or start for the user. The statements once merged into a
        memory as repeats are judged again at once, and those now found to say more are
        stored as their own memories (``statements_restored``)."""
        stale = body is not None and body.stale
        if body is not None and body.background:
            count, restored = t.reindex(user_id=user_id, defer=True, stale=stale)
            enqueue("extract", t.inner(user_id))
            response.status_code = 202
            return {
                "user_id": user_id,
                "memories_reindexed": count,
                "statements_restored": restored,
                "queued": True,
            }
        count, restored = t.reindex(user_id=user_id, stale=stale)
        return {"user_id": user_id, "memories_reindexed": count, "statements_restored": restored}

    @api.delete("/users/{user_id}", response_model=s.ForgetOut)
    def forget(user_id: str, t: TenantMemory = Depends(tenant)) -> Any:
        """Remove every trace of the user: turns, memories, history, indexes, profile,
        units, rules. Not undoable."""
        return {"user_id": user_id, "memories_removed": t.forget(user_id)}

    @api.get("/users", response_model=s.UsersOut)
    def users(t: TenantMemory = Depends(tenant)) -> Any:
        return {"users": t.users()}

    @api.get("/stats")
    def stats(t: TenantMemory = Depends(tenant)) -> dict[str, Any]:
        """This tenant's counts, and the background jobs."""
        return {**t.stats(), "jobs": {"kind": jobs_of().kind, **jobs_of().counts()}}

    # -- keys (admin) ---------------------------------------------------------------------
    keys = APIRouter(prefix="/v1/keys", tags=["keys"])

    @keys.post("", response_model=s.NewKeyOut, status_code=201)
    def create_key(body: s.KeyRequest, _: ApiKey = Depends(admin)) -> Any:
        """A new tenant key; the response is the only place the key is ever shown."""
        record, secret = app.state.keys.create(body.tenant, name=body.name)
        return {**record.to_dict(), "key": secret}

    @keys.get("", response_model=s.KeyList)
    def list_keys(tenant: str | None = None, _: ApiKey = Depends(admin)) -> Any:
        return {"keys": [k.to_dict() for k in app.state.keys.list(tenant)]}

    @keys.delete("/{key_id}", response_model=s.KeyOut)
    def revoke_key(key_id: str, _: ApiKey = Depends(admin)) -> Any:
        return app.state.keys.revoke(key_id).to_dict()

    # -- operations -----------------------------------------------------------------------
    ops = APIRouter(tags=["operations"])

    @ops.get("/healthz")
    def healthz() -> dict[str, str]:
        """The process is up."""
        return {"status": "ok", "version": __version__}

    @ops.get("/readyz", responses={503: {"model": s.ErrorOut}})
    def readyz(request: Request) -> Any:
        """The store answers and the embedder loads (its first call loads the weights)."""
        mem: Memory = app.state.memory
        try:
            mem.store.get_meta("embedder")
            mem.embedder.embed_one("ready")
        except Exception as exc:  # a probe reports, it does not raise
            return JSONResponse(
                _error_body(rid(request), "not_ready", f"not ready: {exc}"), status_code=503
            )
        return {"status": "ready", "backend": mem.store.backend, "embedder": mem.embedder.name}

    @ops.get("/metrics", response_class=Response)
    def prometheus() -> Response:
        """Prometheus metrics: requests and latency per route, extraction failures, jobs,
        and the store's pending turns."""
        mem: Memory = app.state.memory
        st = mem.store.stats()
        counts = jobs_of().counts()
        gauges = {
            "logicmem_pending_turns": ("turns stored but not yet extracted", st["pending_turns"]),
            "logicmem_memories": ("active memories in the store", st["memories"]),
            "logicmem_memories_indexed_otherwise": (
                "active memories indexed by other rules or settings (reindex them)",
                mem.indexed_otherwise(),
            ),
            "logicmem_jobs_queued": ("background jobs waiting", counts.get("queued", 0)),
            "logicmem_jobs_running": ("background jobs running", counts.get("running", 0)),
            "logicmem_jobs_succeeded": (
                "background jobs that succeeded (kept by the queue)",
                counts.get("succeeded", 0),
            ),
            "logicmem_jobs_failed": ("background jobs that failed", counts.get("failed", 0)),
        }
        body, content_type = metrics.render(gauges)
        return Response(body, media_type=content_type)

    app.include_router(api)
    app.include_router(keys)
    app.include_router(ops)
    from logicmem.service import mem0

    mem0.mount(app, tenant=tenant, principal=principal, metrics=metrics)
    return app
