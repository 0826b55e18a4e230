"""The ``Memory`` facade: thin, it wires settings, store, models, write path and routes."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from logicmem.config import Settings, load_settings
from logicmem.context import ContextAssembler
from logicmem.errors import ConfigError, InputError, NotFoundError, StoreError
from logicmem.models.embed.base import Embedder
from logicmem.models.factory import build_embedder, build_llm
from logicmem.models.llm.base import LLM, ChatMessage
from logicmem.routes.base import CONSOLIDATORS, METHODS, ROUTES, RouteEnv
from logicmem.routes.rulemem.prompt import premise_instruction
from logicmem.routes.visible.hook import VisibilityIndexer
from logicmem.store.base import STORES, Store
from logicmem.types import AddResult, Budget, Context, MemoryEntry, Scope, SearchResult
from logicmem.write.messages import parse_messages
from logicmem.write.pipeline import WritePipeline

ANSWER_SYSTEM = """You are a personal assistant with a long-term memory of the user.
Below are memories about the user, each with why it was recalled. Before answering,
check whether any memory changes what a good answer is (health, diet, family, pets,
obligations, plans); apply it without being asked. Do not invent facts about the user.

Memories:
{context}"""


@dataclass
class Answer:
    text: str
    context: Context
    model: str

    def to_dict(self) -> dict[str, Any]:
        return {"answer": self.text, "model": self.model, "context": self.context.to_dict()}


class Memory:
    """Long-term memory for one deployment (many users), mem0-style.

    ``Memory()`` opens the store from settings (``LOGICMEM_STORE`` or the default path);
    pass ``store=":memory:"`` for a throwaway one, or ``config={...}`` to override
    settings. Models load lazily, on first use.
    """

    def __init__(
        self,
        store: str | Path | None = None,
        *,
        config: Settings | Mapping[str, Any] | None = None,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
        routes: Sequence[str] = ("semantic", "visible"),
    ) -> None:
        if isinstance(config, Settings):
            self.settings = config
        else:
            self.settings = load_settings(dict(config or {}))
        if store is not None:
            self.settings = self.settings.model_copy(update={"store": str(store)})
        self.embedder = embedder or build_embedder(self.settings.embedder)
        self._llm = llm
        self._llm_built = llm is not None
        self.store: Store = STORES.create("sqlite", self.settings.store)
        self._check_embedder()
        self.env = RouteEnv(
            store=self.store,
            embedder=self.embedder,
            settings=self.settings.retrieval,
            llm=self.llm,
            visibility=self.settings.visibility,
            profile=self.settings.profile,
            rootmem=self.settings.rootmem,
            rulemem=self.settings.rulemem,
        )
        self.pipeline = WritePipeline(self.store, self.embedder, self.llm, self.settings.extract)
        if self.settings.visibility.enabled:
            self.pipeline.hooks.append(
                VisibilityIndexer(self.store, self.embedder, self.llm, self.settings.visibility)
            )
        self.assembler = ContextAssembler([ROUTES.create(name) for name in routes])

    # -- lifecycle ------------------------------------------------------------------------
    def _check_embedder(self) -> None:
        bound = self.store.get_meta("embedder")
        if bound and json.loads(bound)["name"] != self.embedder.name:
            self.store.close()
            info = json.loads(bound)
            raise StoreError(
                f"the store {self.settings.store} was built with embedder {info['name']} "
                f"({info['dims']} dims), not {self.embedder.name}. Open it with the same "
                "embedder (LOGICMEM_EMBEDDER / [embedder] in the config), or use a new store "
                "and re-ingest: `logicmem export` then `logicmem ingest --format jsonl`."
            )
        if self.store.get_meta("config") is None:
            self.store.set_meta("config", json.dumps(self.settings.public_dict()))

    def llm(self) -> LLM | None:
        """The configured LLM (built on first call; weights load on first use)."""
        if not self._llm_built:
            self._llm = build_llm(self.settings.llm)
            self._llm_built = True
        return self._llm

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- write ----------------------------------------------------------------------------
    def add(
        self,
        messages: str | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        user_id: str,
        session_id: str | None = None,
        timestamp: str | datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
        infer: bool = True,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> AddResult:
        """Store the turns (always, first), then extract memories from them."""
        turns = parse_messages(
            messages,
            user_id=user_id,
            session_id=session_id or f"s-{uuid.uuid4().hex[:12]}",
            timestamp=timestamp,
            agent_id=agent_id,
            run_id=run_id,
            metadata=metadata,
        )
        return self.pipeline.add(turns, infer=infer)

    def update(
        self, memory_id: str, text: str, *, metadata: Mapping[str, Any] | None = None
    ) -> MemoryEntry:
        if not text or not text.strip():
            raise InputError("the new text is empty: pass the memory's new wording")
        current = self.get(memory_id)
        merged = {**current.metadata, **(metadata or {})}
        return self.store.update_memory(
            memory_id,
            event="UPDATE",
            text=text.strip(),
            vector=self.embedder.embed_one(text.strip()),
            metadata=merged,
        )

    def delete(self, memory_id: str) -> None:
        self.store.delete_memory(memory_id)

    def delete_user(self, user_id: str) -> int:
        """Remove every trace of a user (turns, memories, history); returns memories removed."""
        return self.store.delete_user(user_id)

    def reset(self) -> None:
        self.store.reset()

    # -- read -----------------------------------------------------------------------------
    def get(self, memory_id: str) -> MemoryEntry:
        entry = self.store.get_memory(memory_id)
        if entry is None:
            raise NotFoundError(f"no memory with id {memory_id!r}")
        return entry

    def get_all(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        include_superseded: bool = False,
        limit: int | None = None,
    ) -> list[MemoryEntry]:
        return self.store.list_memories(
            Scope(user_id, agent_id, run_id), include_superseded=include_superseded, limit=limit
        )

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        rows = self.store.history(memory_id)
        if not rows and self.store.get_memory(memory_id) is None:
            raise NotFoundError(f"no memory with id {memory_id!r} and no history for it")
        return [r.__dict__ for r in rows]

    def search(
        self,
        query: str,
        *,
        user_id: str,
        k: int = 10,
        method: str = "hybrid",
        filters: dict[str, Any] | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> SearchResult:
        """Semantic retrieval only (``bm25``, ``dense``, ``hybrid`` or a registered method)."""
        _check_query(query, k)
        scope = Scope(user_id, agent_id, run_id)
        hits = METHODS.create(method).search(self.env, query, scope, k, filters)
        return SearchResult(query=query, user_id=user_id, method=method, k=k, hits=hits)

    def context(
        self,
        query: str,
        *,
        user_id: str,
        k: int = 30,
        max_tokens: int | None = None,
        filters: dict[str, Any] | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> Context:
        """The budgeted context for ``query`` from every enabled route, with provenance."""
        _check_query(query, k)
        budget = Budget(k=k, max_tokens=max_tokens)
        return self.assembler.build(
            self.env, query, Scope(user_id, agent_id, run_id), budget, filters
        )

    def answer(
        self,
        query: str,
        *,
        user_id: str,
        k: int = 30,
        max_tokens: int | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> Answer:
        """Build the context and ask the configured LLM to answer with it."""
        llm = self.llm()
        if llm is None:
            raise ConfigError(
                "no LLM configured: set LOGICMEM_LLM=local (embedded SmolLM2) or "
                "LOGICMEM_LLM=openai with LOGICMEM_LLM_BASE_URL and LOGICMEM_LLM_MODEL"
            )
        ctx = self.context(
            query, user_id=user_id, k=k, max_tokens=max_tokens, agent_id=agent_id, run_id=run_id
        )
        messages: list[ChatMessage] = [
            {
                "role": "system",
                "content": ANSWER_SYSTEM.format(context=ctx.render())
                + premise_instruction(i.text for i in ctx.items),
            },
            {"role": "user", "content": query},
        ]
        return Answer(text=llm.chat(messages).strip(), context=ctx, model=llm.name)

    def consolidate(
        self,
        *,
        user_id: str,
        only: Sequence[str] | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> dict[str, dict[str, Any]]:
        """Run the offline builders (root units, rules...) over what is new for a user.

        Incremental and resumable: each consolidator keeps its own watermark, so calling
        this after every session, or once after a bulk ingest, costs only the new work.
        """
        names = list(only) if only is not None else CONSOLIDATORS.names()
        for name in names:
            if name not in CONSOLIDATORS:
                raise InputError(
                    f"unknown consolidator {name!r}: choose among "
                    f"{', '.join(CONSOLIDATORS.names()) or '(none registered)'}"
                )
        scope = Scope(user_id, agent_id, run_id)
        out: dict[str, dict[str, Any]] = {}
        for name in names:
            started = time.perf_counter()
            stats = CONSOLIDATORS.create(name).consolidate(self.env, scope)
            out[name] = {**stats, "seconds": round(time.perf_counter() - started, 3)}
        return out

    def users(self) -> list[str]:
        return self.store.users()

    def stats(self) -> dict[str, Any]:
        return self.store.stats()


def _check_query(query: str, k: int) -> None:
    if not isinstance(query, str) or not query.strip():
        raise InputError("the query is empty: pass the request text")
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}")
