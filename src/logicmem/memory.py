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
from logicmem.prompting import DATA_NOT_INSTRUCTIONS
from logicmem.routes.base import CONSOLIDATORS, METHODS, ROUTES, RouteEnv
from logicmem.routes.rulemem.prompt import premise_instruction
from logicmem.store.base import Store
from logicmem.store.url import open_store, redact
from logicmem.types import AddResult, Budget, Context, MemoryEntry, Scope, SearchResult
from logicmem.write.messages import clean_text, normalize_time, parse_messages
from logicmem.write.pipeline import WritePipeline, build_hooks

ANSWER_SYSTEM = (
    """You are a personal assistant with a long-term memory of the user.
Below, in the memories block, are the memories recalled for this request, one JSON
object a line: "text" is the memory, "said" when it was said (where known) and "why" why
it was recalled. Before answering, check whether any memory changes what a good
answer is (health, diet, family, pets, obligations, plans); apply it without being asked.
Do not invent facts about the user. """
    + DATA_NOT_INSTRUCTIONS
    + """

Memories:
{context}"""
)

MAX_LIMIT = 2**62  # what every backend's integer holds

AS_OF_NOTE = "\nThese are the memories that held on {as_of}: answer as of that moment."


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
    ``store`` takes a path or a store URL (``sqlite:///abs/path.db``, ``:memory:`` for a
    throwaway one; see ``logicmem.store.url``), ``config={...}`` overrides settings.
    Models load lazily, on first use.
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
        self.store: Store = open_store(self.settings.store)
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
        hooks = build_hooks(self.store, self.embedder, self.llm, self.settings)
        self.pipeline = WritePipeline(
            self.store, self.embedder, self.llm, self.settings.extract, hooks=hooks
        )
        self.assembler = ContextAssembler([ROUTES.create(name) for name in routes])
        self._resume()

    def _resume(self, user_id: str | None = None) -> AddResult | None:
        """Finish turns an interrupted write left pending (unless settings say not to)."""
        if not self.settings.extract.resume_pending or self.store.read_only:
            return None
        return self.resume(user_id=user_id)

    def reindex(
        self,
        *,
        user_id: str | None = None,
        defer: bool = False,
        merges: bool = True,
        stale: bool = False,
    ) -> int:
        """Run the write hooks again over a user's active memories (every user's without
        ``user_id``), so that what they derive (which memories are standing constraints,
        and their keys) follows the current rules and knowledge resource, as after an
        upgrade; returns how many memories were marked to be indexed again. With
        ``stale``, only the memories another version of the hooks indexed (those
        ``indexed_otherwise`` counts): a second run after an upgrade, or one after a
        reindex that was stopped, redoes nothing already current. Resumable: the memories
        are marked first, and those a crash leaves marked are indexed by ``resume`` (which
        opening the store runs). With ``defer``, only marked: a later ``resume`` (a
        service job) indexes them. With ``merges`` (the default), the statements once
        merged into a memory as repeats are judged again at once (``rejudge_merges``)."""
        if self.store.read_only:
            raise InputError("the store is open read-only: open it writable to reindex it")
        users = [user_id] if user_id is not None else self.store.users()
        other_than = self.pipeline.index_version if stale else None
        count = 0
        for user in users:
            count += self.store.mark_unindexed(user, other_than=other_than)
            if not defer:
                self.pipeline.resume(user_id=user)
        if merges:
            self.rejudge_merges(user_id=user_id)
        return count

    def rejudge_merges(self, *, user_id: str | None = None) -> list[MemoryEntry]:
        """Judge again, with the current rules, the statements merged into a user's
        memories (every user's without ``user_id``) as repeats of them; store as its own
        memory each one that says something its memory does not, and return those
        memories. An upgrade that fixes a wrong merge thereby brings back what the old
        version folded into another memory (``WritePipeline.rejudge_merges``)."""
        if self.store.read_only:
            raise InputError("the store is open read-only: open it writable to rejudge merges")
        users = [user_id] if user_id is not None else self.store.users()
        restored: list[MemoryEntry] = []
        for user in users:
            restored += self.pipeline.rejudge_merges(user).added
        return restored

    def resume(self, *, user_id: str | None = None) -> AddResult:
        """Extract the turns that were stored but not yet extracted (a crash, a kill, a
        lost LLM) exactly as the interrupted write would have; returns what it did."""
        return self.pipeline.resume(user_id=user_id)

    # -- lifecycle ------------------------------------------------------------------------
    def _check_embedder(self) -> None:
        bound = self.store.get_meta("embedder")
        if bound and json.loads(bound)["name"] != self.embedder.name:
            self.store.close()
            info = json.loads(bound)
            raise StoreError(
                f"the store {redact(self.settings.store)} was built with embedder {info['name']} "
                f"({info['dims']} dims), not {self.embedder.name}. Open it with the same "
                "embedder (LOGICMEM_EMBEDDER / [embedder] in the config), or use a new store "
                "and re-ingest: `logicmem export` then `logicmem ingest --format jsonl`."
            )
        if self.store.get_meta("config") is None and not self.store.read_only:
            self.store.set_meta("config", json.dumps(self.settings.public_dict()))

    def warm_up(self) -> None:
        """Load what the first write and the first request would otherwise load: the
        embedder's weights, the categorizer, the write hooks' classifiers (a service calls
        this at start, so no request pays seconds for it)."""
        self.embedder.embed_one("warm up")
        self.pipeline.warm_up()

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
        defer: bool = False,
    ) -> AddResult:
        """Store the turns (always, first), then extract memories from them. With
        ``defer``, return once the turns are committed: they stay pending until ``resume``
        (a background job of the service, or the next write for this user) extracts them;
        the result then lists the turns only, with ``extractor == "deferred"``."""
        turns = parse_messages(
            messages,
            user_id=user_id,
            session_id=session_id or f"s-{uuid.uuid4().hex[:12]}",
            timestamp=timestamp,
            agent_id=agent_id,
            run_id=run_id,
            metadata=metadata,
            max_chars=self.settings.extract.max_message_chars,
        )
        if defer:
            return self.pipeline.add(turns, infer=infer, defer=True)
        self._resume(user_id)
        return self.pipeline.add(turns, infer=infer)

    def update(
        self,
        memory_id: str,
        text: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> MemoryEntry:
        text = clean_text(text) if isinstance(text, str) else text
        if not text or not text.strip():
            raise InputError("the new text is empty: pass the memory's new wording")
        current = self.get(memory_id, user_id=user_id, agent_id=agent_id, run_id=run_id)
        merged = {**current.metadata, **(metadata or {})}
        return self.store.update_memory(
            memory_id,
            event="UPDATE",
            text=text.strip(),
            vector=self.embedder.embed_one(text.strip()),
            metadata=merged,
        )

    def delete(
        self,
        memory_id: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> None:
        """Remove the memory's text everywhere (history keeps a tombstone)."""
        self.get(memory_id, user_id=user_id, agent_id=agent_id, run_id=run_id)
        self.store.delete_memory(memory_id, Scope(user_id, agent_id, run_id))

    def delete_user(self, user_id: str) -> int:
        """Remove every trace of a user from the store file: turns, memories, history,
        keyword index, vectors, derived texts, keys, units, rules, facts, profile, events;
        returns the number of memories removed."""
        return self.store.delete_user(user_id)

    def reset(self) -> None:
        self.store.reset()

    # -- read -----------------------------------------------------------------------------
    def get(
        self,
        memory_id: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> MemoryEntry:
        """The memory with this id, if it is this user's (another user's id: NotFoundError)."""
        entry = self.store.get_memory(memory_id, _scope(user_id, agent_id, run_id))
        if entry is None:
            raise NotFoundError(
                f"no memory with id {memory_id!r} for user {user_id!r}; list the user's ids "
                f"with `logicmem list --user {user_id}`"
            )
        return entry

    def get_all(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        include_superseded: bool = False,
        limit: int | None = None,
        as_of: str | datetime | None = None,
    ) -> list[MemoryEntry]:
        """The user's memories valid now (or at ``as_of``; every one with
        ``include_superseded``), in the order they were stored."""
        if limit is not None and not 1 <= limit <= MAX_LIMIT:
            raise InputError(f"limit must be between 1 and {MAX_LIMIT:,}, got {limit}")
        return self.store.list_memories(
            _scope(user_id, agent_id, run_id),
            include_superseded=include_superseded,
            limit=limit,
            as_of=normalize_time(as_of, field="as_of"),
        )

    def history(self, memory_id: str, *, user_id: str) -> list[dict[str, Any]]:
        """The memory's changes, oldest first (``at``, ``event``, ``old_text``, ``new_text``,
        ``detail``). Every row also carries the memory's validity now: ``valid_from``,
        ``valid_until`` and ``superseded_by`` (what replaced or retracted it), ``replaces``
        (the memories it closed) and ``chain``, the line of statements it belongs to, oldest
        first and itself included: each ``{id, text, status, valid_from, valid_until,
        superseded_by}``, so "lives in Boston" -> "moved to Denver" reads in order."""
        rows = self.store.history(memory_id, user_id)
        if not rows:
            raise NotFoundError(f"no memory with id {memory_id!r} for user {user_id!r}")
        entry = self.store.get_memory(memory_id, Scope(user_id))
        chain = _chain(self.store, entry) if entry is not None else []
        extra: dict[str, Any] = {
            "valid_from": entry.valid_from if entry else None,
            "valid_until": entry.valid_until if entry else None,
            "superseded_by": entry.superseded_by if entry else None,
            "replaces": [c["id"] for c in chain if c["superseded_by"] == memory_id],
            "chain": chain,
        }
        return [{**r.__dict__, **extra} for r in rows]

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
        as_of: str | datetime | None = None,
    ) -> SearchResult:
        """Semantic retrieval only (``bm25``, ``dense``, ``hybrid`` or a registered method).

        ``as_of`` (ISO 8601 or a date): search what was true then, the memories valid at
        that moment, even those replaced or retracted since; by default, what is true now."""
        _check_query(query, k)
        scope = Scope(user_id, agent_id, run_id)
        env = self.env.at(_as_of(as_of))
        hits = METHODS.create(method).search(env, query, scope, k, filters)
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
        as_of: str | datetime | None = None,
    ) -> Context:
        """The budgeted context for ``query`` from every enabled route, with provenance;
        with ``as_of``, from the memories valid at that moment (see ``search``)."""
        _check_query(query, k)
        budget = Budget(k=k, max_tokens=max_tokens)
        scope = Scope(user_id, agent_id, run_id)
        return self.assembler.build(self.env, query, scope, budget, filters, as_of=_as_of(as_of))

    def answer(
        self,
        query: str,
        *,
        user_id: str,
        k: int = 30,
        max_tokens: int | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        as_of: str | datetime | None = None,
    ) -> Answer:
        """Build the context and ask the configured LLM to answer with it (with ``as_of``,
        as of that moment: from the memories valid then)."""
        llm = self.llm()
        if llm is None:
            raise ConfigError(
                "no LLM configured: set LOGICMEM_LLM=local (embedded SmolLM2) or "
                "LOGICMEM_LLM=openai with LOGICMEM_LLM_BASE_URL and LOGICMEM_LLM_MODEL"
            )
        moment = _as_of(as_of)
        ctx = self.context(
            query,
            user_id=user_id,
            k=k,
            max_tokens=max_tokens,
            agent_id=agent_id,
            run_id=run_id,
            as_of=moment,
        )
        # Only the rule route's rule items (ids "rule:…") are rules: a stored memory that
        # merely starts with "Rule:" must not switch the premise instruction on.
        rules = [i.text for i in ctx.items if i.memory_id.startswith("rule:")]
        messages: list[ChatMessage] = [
            {
                "role": "system",
                "content": ANSWER_SYSTEM.format(context=ctx.render())
                + (AS_OF_NOTE.format(as_of=moment) if moment else "")
                + premise_instruction(rules),
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
        self._resume(user_id)
        scope = Scope(user_id, agent_id, run_id)
        out: dict[str, dict[str, Any]] = {}
        for name in names:
            started = time.perf_counter()
            stats = CONSOLIDATORS.create(name).consolidate(self.env, scope)
            out[name] = {**stats, "seconds": round(time.perf_counter() - started, 3)}
        return out

    def admin_users(self) -> list[str]:
        """Every user id in the store: an administrator's call (it crosses tenants)."""
        return self.store.users()

    def stats(self) -> dict[str, Any]:
        """The store's counts, failures and size, and ``index``: the write hooks' current
        version and how many memories other versions indexed (``reindex`` judges them
        again: after an upgrade, their criticality follows the rules that were current)."""
        version = self.pipeline.index_version
        otherwise = self.store.indexed_otherwise(version)
        return {**self.store.stats(), "index": {"version": version, "indexed_otherwise": otherwise}}

    def indexed_otherwise(self, *, user_prefix: str = "") -> int:
        """How many active memories (of users whose ids start with ``user_prefix``) were
        indexed by write hooks other than the current ones: an earlier release, other
        settings, or before versions were kept. ``reindex`` brings them up to date."""
        return self.store.indexed_otherwise(self.pipeline.index_version, user_prefix=user_prefix)


def _scope(user_id: str, agent_id: str | None, run_id: str | None) -> Scope:
    if not user_id or not str(user_id).strip():
        raise InputError("user_id is required: pass user_id='alice' (or --user in the CLI)")
    return Scope(user_id, agent_id, run_id)


def _as_of(value: str | datetime | None) -> str | None:
    """``as_of`` as the store compares times (naive ISO 8601); InputError if unreadable."""
    return normalize_time(value, field="as_of")


def _chain(store: Store, entry: MemoryEntry) -> list[dict[str, Any]]:
    """``entry``'s line of statements: all it replaced or retracted (directly or through
    others), itself, then what replaced it in turn; oldest first."""
    scope = Scope(entry.user_id, entry.agent_id, entry.run_id)
    everyone = {m.id: m for m in store.list_memories(scope, include_superseded=True)}
    everyone[entry.id] = entry
    closed_by: dict[str, list[str]] = {}
    for m in everyone.values():
        if m.superseded_by:
            closed_by.setdefault(m.superseded_by, []).append(m.id)
    line = {entry.id: entry}
    todo = [entry.id]
    while todo:
        for older in closed_by.get(todo.pop(), []):
            if older not in line:
                line[older] = everyone[older]
                todo.append(older)
    later = entry.superseded_by
    while later and later in everyone and later not in line:
        line[later] = everyone[later]
        later = everyone[later].superseded_by
    ordered = sorted(line.values(), key=lambda m: (m.valid_from or "", m.created_at))
    return [
        {
            "id": m.id,
            "text": m.text,
            "status": m.status,
            "valid_from": m.valid_from,
            "valid_until": m.valid_until,
            "superseded_by": m.superseded_by,
        }
        for m in ordered
    ]


def _check_query(query: str, k: int) -> None:
    if not isinstance(query, str) or not query.strip():
        raise InputError("the query is empty: pass the request text")
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}")
