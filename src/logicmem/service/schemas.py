"""Request and response bodies of the service (the OpenAPI schema is generated from them)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_QUERY_CHARS = 10_000
MAX_MESSAGES = 1_000
MAX_K = 1_000
Id = Field(default=None, min_length=1, max_length=200)


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Message(Body):
    role: Literal["user", "assistant", "system"] = "user"
    content: str = Field(max_length=100_000)
    name: str | None = Field(default=None, max_length=200)
    timestamp: str | None = Field(default=None, max_length=100)
    turn_id: str | None = Field(default=None, min_length=1, max_length=200)
    metadata: dict[str, Any] | None = None


class AddRequest(Body):
    """Either ``messages`` (a conversation, oldest first) or ``text`` (one user message)."""

    messages: list[Message] | None = Field(default=None, max_length=MAX_MESSAGES)
    text: str | None = Field(default=None, max_length=100_000)
    agent_id: str | None = Id
    run_id: str | None = Id
    session_id: str | None = Id
    timestamp: str | None = Field(default=None, max_length=100, description="when it was said")
    metadata: dict[str, Any] | None = None
    infer: bool = Field(default=True, description="false: store the user's text verbatim")
    background: bool = Field(
        default=False,
        description="return once the turns are committed; extraction runs as a job",
    )


class Scoped(Body):
    agent_id: str | None = Id
    run_id: str | None = Id


class SearchRequest(Scoped):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: int = Field(default=10, ge=1, le=MAX_K)
    method: str = Field(default="hybrid", max_length=50)
    filters: dict[str, Any] | None = None
    as_of: str | None = Field(default=None, max_length=100)


class ContextRequest(Scoped):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: int = Field(default=30, ge=1, le=MAX_K)
    max_tokens: int | None = Field(default=None, ge=1, le=1_000_000)
    filters: dict[str, Any] | None = None
    as_of: str | None = Field(default=None, max_length=100)


class AnswerRequest(Scoped):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: int = Field(default=30, ge=1, le=MAX_K)
    max_tokens: int | None = Field(default=None, ge=1, le=1_000_000)
    as_of: str | None = Field(default=None, max_length=100)


class UpdateRequest(Scoped):
    text: str = Field(min_length=1, max_length=100_000)
    metadata: dict[str, Any] | None = None


class ConsolidateRequest(Scoped):
    only: list[str] | None = Field(default=None, max_length=20)
    background: bool = Field(default=False, description="queue it as a job and return 202")


class ReindexRequest(Body):
    background: bool = Field(
        default=False,
        description="mark the memories now, index them in a job (an extract job), return 202",
    )
    stale: bool = Field(
        default=False,
        description="only the memories another version of the rules or settings indexed "
        "(those GET /v1/stats counts as indexed_otherwise)",
    )


class KeyRequest(Body):
    tenant: str = Field(min_length=1, max_length=64)
    name: str = Field(default="", max_length=200)


# -- responses ----------------------------------------------------------------------------
class MemoryOut(BaseModel):
    id: str
    user_id: str
    text: str
    category: str
    said_at: str | None
    session_id: str | None
    source_turns: list[str]
    metadata: dict[str, Any]
    status: str
    superseded_by: str | None
    agent_id: str | None
    run_id: str | None
    created_at: str
    updated_at: str
    valid_from: str | None
    valid_until: str | None


class AddOut(BaseModel):
    turns: list[str]
    added: list[MemoryOut]
    merged: list[str]
    superseded: list[str]
    extractor: str
    failures: int
    unmatched_forgets: list[str] = Field(
        default_factory=list,
        description="ids of requests to forget that found no memory to close: ask the user "
        "what they meant, or delete by id",
    )
    queued: bool = Field(description="true: extraction runs as a background job")


class HitOut(BaseModel):
    id: str
    text: str
    score: float
    score_kind: str
    route: str
    reason: str
    source_turns: list[str]
    session_id: str | None
    category: str
    said_at: str | None
    rank: int
    extras: dict[str, Any]


class SearchOut(BaseModel):
    query: str
    user_id: str
    method: str
    budget: dict[str, int]
    hits: list[HitOut]


class ContextItemOut(BaseModel):
    memory_id: str
    text: str
    route: str = Field(description="the route that put the item here")
    reason: str = Field(description="why it was recalled")
    score: float
    score_kind: str
    source_turns: list[str]
    session_id: str | None
    said_at: str | None
    category: str
    tokens: int
    note: str = Field(
        default="",
        description=(
            "what time has changed since it was said: a stated term ended, a person's age now"
        ),
    )


class ContextOut(BaseModel):
    query: str
    user_id: str
    budget: dict[str, int | None]
    tokens: int
    routes: dict[str, int]
    dropped: dict[str, int]
    items: list[ContextItemOut]
    prompt: str = Field(description="the context rendered as prompt text")


class AnswerOut(BaseModel):
    answer: str
    model: str
    context: dict[str, Any]


class MemoryList(BaseModel):
    user_id: str
    memories: list[MemoryOut]


class HistoryOut(BaseModel):
    memory_id: str
    history: list[dict[str, Any]]


class ForgetOut(BaseModel):
    user_id: str
    memories_removed: int


class ReindexOut(BaseModel):
    user_id: str
    memories_reindexed: int
    # Statements once merged into a memory as repeats, stored as their own memories now
    # that the running version judges them to say something more (``rejudge_merges``).
    statements_restored: int = 0
    queued: bool = False


class UsersOut(BaseModel):
    users: list[str]


class KeyOut(BaseModel):
    key_id: str
    tenant: str
    name: str
    role: str
    created_at: str
    last_used_at: str | None
    revoked_at: str | None


class NewKeyOut(KeyOut):
    key: str = Field(description="the API key; shown this once, never stored")


class KeyList(BaseModel):
    keys: list[KeyOut]


class ErrorDetail(BaseModel):
    code: str = Field(description="stable: clients may branch on it")
    message: str = Field(description="what went wrong and what to do")
    request_id: str


class ErrorOut(BaseModel):
    error: ErrorDetail


class Deleted(BaseModel):
    id: str
    deleted: bool
