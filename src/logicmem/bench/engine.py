"""The generic recall engine: build stores, ask probes with each method, trace provenance.

A *plan* is one store: background sessions shared by many plans (built once into a
template SQLite file, then copied per plan, which takes milliseconds) plus the plan's own
sessions (injections, the rest of the dialogue). A *probe* is one question with its gold
turns. For every probe, method and k the engine records whether one of the first k items
traces back, through its source turns, to a gold turn (or gold session).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import statistics
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Generator, Iterable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from logicmem.bench.methods import BenchMethod, Item
from logicmem.config import Settings
from logicmem.memory import Memory
from logicmem.models.embed.base import Embedder
from logicmem.models.llm.base import LLM
from logicmem.store.migrate import migrate
from logicmem.store.sql import SQLStore
from logicmem.store.url import open_store, parse_store_url, sqlite_url
from logicmem.write.messages import normalize_time


@dataclass
class Session:
    id: str
    date: str | None
    turns: list[dict[str, Any]]
    """Messages for ``Memory.add``: speaker, role, text, turn_id."""


@dataclass
class Probe:
    id: str
    query: str
    gold_turns: frozenset[str] = frozenset()
    gold_sessions: frozenset[str] = frozenset()
    answer: str | None = None
    group: str = "all"
    also: dict[str, frozenset[str]] = field(default_factory=dict)
    """More named gold turn sets, scored into ``extra["hit_<name>"]`` (IMLogic's m_s)."""
    meta: dict[str, Any] = field(default_factory=dict)


USER_IDS = ("name", "opaque")


@dataclass
class Plan:
    """One store to build and the probes to ask of it."""

    key: str
    user_id: str
    infer: bool
    background: list[Session]
    sessions: list[Session]
    probes: list[Probe]
    aliases: dict[str, list[str]] = field(default_factory=dict)
    """Stored turn id -> the ids gold refers to (memory level: entry -> its dia_ids)."""
    turn_sessions: dict[str, str] = field(default_factory=dict)
    """Gold-space turn id -> its session, when the stored turns are not the gold ones."""


def request_day(plan: Plan) -> str:
    """The day of the plan's last dated session (YYYY-MM-DD), or "" when none is dated."""
    days = [t[:10] for s in (*plan.background, *plan.sessions) if (t := normalize_time(s.date))]
    return max(days, default="")


@dataclass
class Record:
    """The outcome of one probe with one method at one k."""

    probe: str
    method: str
    k: int
    hit: bool
    answer_hit: bool | None
    rank: int | None
    items: int
    tokens: int
    latency_ms: float
    extra: dict[str, Any] = field(default_factory=dict)
    routes: dict[str, int] = field(default_factory=dict)
    """Items per route that placed them (``visible``, ``semantic``...)."""

    def to_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


AnswerFn = Callable[[Probe, str, int, list[Item]], dict[str, Any]]


def normalize(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def contains_answer(text: str, answer: str) -> bool:
    """Whether ``text`` holds ``answer`` (lowercase words, punctuation ignored)."""
    want = normalize(answer)
    return bool(want) and f" {want} " in f" {normalize(text)} "


class Tracer:
    """Maps an item's source turns to gold-space turn ids and sessions."""

    def __init__(self, plan: Plan) -> None:
        self.aliases = plan.aliases
        self.session_of: dict[str, str] = dict(plan.turn_sessions)
        for session in [*plan.background, *plan.sessions]:
            for turn in session.turns:
                self.session_of[str(turn["turn_id"])] = session.id

        # Per memory id: the store does not change while a plan's probes are asked.
        self._turns: dict[str, frozenset[str]] = {}
        self._sessions: dict[str, frozenset[str]] = {}

    def turns(self, item: Item) -> frozenset[str]:
        found = self._turns.get(item.memory_id)
        if found is None:
            out: set[str] = set()
            for turn in item.source_turns:
                out.update(self.aliases.get(turn, [turn]))
            found = self._turns[item.memory_id] = frozenset(out)
        return found

    def sessions(self, item: Item) -> frozenset[str]:
        found = self._sessions.get(item.memory_id)
        if found is None:
            turns = set(item.source_turns) | self.turns(item)
            out = {self.session_of[t] for t in turns if t in self.session_of}
            found = frozenset(out | ({item.session_id} if item.session_id else set()))
            self._sessions[item.memory_id] = found
        return found

    def is_gold(self, probe: Probe, item: Item) -> bool:
        if probe.gold_turns:
            return bool(self.turns(item) & probe.gold_turns)
        return bool(self.sessions(item) & probe.gold_sessions)


def score(probe: Probe, items: list[Item], tracer: Tracer) -> tuple[bool, bool | None, int | None]:
    """(hit, answer_hit, 1-based rank of the first gold item) for one ranked item list."""
    rank = None
    answer_hit: bool | None = None if probe.answer is None else False
    for i, item in enumerate(items, 1):
        if tracer.is_gold(probe, item):
            rank = rank or i
            if probe.answer is not None and contains_answer(item.text, probe.answer):
                answer_hit = True
                break
            if probe.answer is None:
                break
    return rank is not None, answer_hit, rank


class Engine:
    """Runs plans with the given methods and budgets; collects records and store stats."""

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder,
        methods: list[BenchMethod],
        ks: list[int],
        *,
        llm: LLM | None = None,
        progress: bool = True,
        workdir: Path | None = None,
        store: str | None = None,
        user_ids: str = "name",
    ) -> None:
        """``store``: where the bench builds its throwaway stores: None or a SQLite URL,
        files in a temporary folder; ``postgresql://...``, schemas in that database, each
        dropped when its plan is done (templates when the engine closes). ``user_ids``:
        ``name``, the store's user id is the user's name as the turns give it; ``opaque``,
        an account-style id ("user-" and 8 hex digits of the name) while the turns keep the
        name, as in a deployment whose user ids are not names."""
        self.settings = settings
        self.embedder = embedder
        self.methods = methods
        self.ks = sorted(set(ks))
        self.llm = llm
        self.progress = progress
        if user_ids not in USER_IDS:
            raise ValueError(f"user_ids must be one of {USER_IDS}, got {user_ids!r}")
        self.user_ids = user_ids
        self._tmp = tempfile.TemporaryDirectory(prefix="logicmem-bench-", dir=workdir)
        self.workdir = Path(self._tmp.name)
        self._templates: dict[str, str] = {}
        self.backend = parse_store_url(store).backend if store else "sqlite"
        self._base = store
        self._token = uuid.uuid4().hex[:8]
        self.store_stats: list[dict[str, int]] = []
        self.consolidators = list(dict.fromkeys(c for m in methods for c in m.consolidators))
        # Per run of a consolidator: what it did and how long it took (seconds).
        self.consolidation: list[dict[str, Any]] = []
        # Per method: LLM calls and tokens its queries cost, from env.cache["llm_usage"].
        self.llm_usage: dict[str, dict[str, int]] = {}
        self._runs = 0

    def close(self) -> None:
        for url in self._templates.values():
            self._drop(url)
        self._templates.clear()
        self._tmp.cleanup()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- stores ---------------------------------------------------------------------------
    def _url(self, name: str) -> str:
        """The URL of the throwaway store ``name``: a file in the workdir, or a schema."""
        if self.backend == "sqlite":
            return sqlite_url(self.workdir / f"{name}.db")
        assert self._base is not None
        sep = "&" if "?" in self._base else "?"
        return f"{self._base}{sep}schema=lmbench_{self._token}_{name.replace('-', '_')}"

    def _drop(self, url: str) -> None:
        if self.backend == "sqlite":
            Path(parse_store_url(url).target).unlink(missing_ok=True)
        else:
            from logicmem.store.postgres import drop_schema

            drop_schema(url)

    def user_id(self, plan: Plan) -> str:
        """The store's id for the plan's user (see ``user_ids``)."""
        if self.user_ids == "opaque":
            return "user-" + hashlib.sha256(plan.user_id.encode()).hexdigest()[:8]
        return plan.user_id

    def _memory(self, url: str, settings: Settings | None = None) -> Memory:
        return Memory(url, config=settings or self.settings, embedder=self.embedder, llm=self.llm)

    def _reading(self, plan: Plan) -> Settings:
        """The settings the plan's requests are read with: on the day of its history's last
        session (``VisibilitySettings.today``), since they follow the history, unless a day
        was configured. Otherwise "tomorrow", and whether a constraint's stated term has
        ended, would depend on the day the bench runs."""
        if self.settings.visibility.today:
            return self.settings
        day = request_day(plan)
        if not day:
            return self.settings
        visibility = self.settings.visibility.model_copy(update={"today": day})
        return self.settings.model_copy(update={"visibility": visibility})

    def _add(self, mem: Memory, plan: Plan, sessions: list[Session]) -> None:
        for s in sessions:
            if s.turns:
                mem.add(
                    s.turns,
                    user_id=self.user_id(plan),
                    session_id=s.id,
                    timestamp=s.date,
                    infer=plan.infer,
                )

    def _template(self, plan: Plan) -> str:
        blob = json.dumps(
            [self.user_id(plan), plan.infer, [[s.id, s.date, s.turns] for s in plan.background]],
            sort_keys=True,
        )
        key = hashlib.sha256(blob.encode()).hexdigest()[:20]
        url = self._templates.get(key)
        if url is None:
            url = self._url(f"template-{key}")
            mem = self._memory(url)
            try:
                self._add(mem, plan, plan.background)
                self._consolidate(mem, plan, "background")
            finally:
                mem.close()  # the last connection's close checkpoints the WAL into the file
            self._templates[key] = url
        return url

    def open(self, plan: Plan, url: str) -> Memory:
        """A fresh store for ``plan`` at ``url``: the background template, then its sessions."""
        template = self._template(plan)
        if self.backend == "sqlite":
            shutil.copyfile(parse_store_url(template).target, parse_store_url(url).target)
        else:
            source, copy = open_store(template), open_store(url)
            try:
                assert isinstance(source, SQLStore) and isinstance(copy, SQLStore)
                migrate(source, copy)
            finally:
                source.close()
                copy.close()
        mem = self._memory(url, self._reading(plan))
        self._add(mem, plan, plan.sessions)
        self._consolidate(mem, plan, "sessions")
        return mem

    def _consolidate(self, mem: Memory, plan: Plan, stage: str) -> None:
        """Build what the methods read offline (units, rules): background once per template,
        then only the plan's own sessions, as a deployed system would after each session."""
        if not self.consolidators:
            return
        for name, stats in mem.consolidate(
            user_id=self.user_id(plan), only=self.consolidators
        ).items():
            self.consolidation.append({"consolidator": name, "stage": stage, **stats})

    def prefetch(self, plans: list[Plan], batch: int = 256) -> None:
        """Embed every known text (queries; memories stored verbatim) in large batches.

        One text per call is several times slower than batches on CPU; through the cache,
        later calls for the same texts cost nothing.
        """
        texts: dict[str, None] = {}
        for plan in plans:
            texts.update((p.query, None) for p in plan.probes)
            if not plan.infer:
                for s in [*plan.background, *plan.sessions]:
                    texts.update((str(t["text"]).strip(), None) for t in s.turns)
        todo = list(texts)
        bar = tqdm(total=len(todo), desc="embedding", unit="text", disable=not self.progress)
        for i in range(0, len(todo), batch):
            self.embedder.embed(todo[i : i + batch])
            bar.update(len(todo[i : i + batch]))
        bar.close()

    # -- probing --------------------------------------------------------------------------
    def stores(
        self, plans: Iterable[Plan], *, total: int | None = None, desc: str = "bench"
    ) -> Generator[tuple[Plan, Memory, Tracer]]:
        """Each plan's store, built (texts embedded in batches first), handed out with its
        tracer, and closed and dropped once the caller moves on: for scripts that ask a
        store more than the methods do."""
        plans = list(plans)
        self.prefetch(plans)
        bar = tqdm(plans, total=total, desc=desc, unit="store", disable=not self.progress)
        for plan in bar:
            self._runs += 1
            url = self._url(f"run-{self._runs}")
            mem = self.open(plan, url)
            try:
                yield plan, mem, Tracer(plan)
            finally:
                mem.close()
                self._drop(url)

    def run(
        self,
        plans: Iterable[Plan],
        *,
        answer_fn: AnswerFn | None = None,
        total: int | None = None,
        desc: str = "bench",
    ) -> list[Record]:
        records: list[Record] = []
        # closing(): a failing probe closes and drops its store now, not when collected.
        with closing(self.stores(plans, total=total, desc=desc)) as built:
            for plan, mem, tracer in built:
                stats = mem.stats()
                self.store_stats.append(
                    {
                        "memories": int(stats["memories"]),
                        "superseded": int(stats["superseded"]),
                        "turns": int(stats["turns"]),
                    }
                )
                fixed: dict[str, tuple[list[Item], float]] = {}
                for probe in plan.probes:
                    records.extend(self._probe(mem, plan, probe, tracer, fixed, answer_fn))
                self._collect_usage(mem)
        return records

    def _collect_usage(self, mem: Memory) -> None:
        """Methods that call an LLM at query time count it in ``env.cache["llm_usage"]``."""
        for method, counts in mem.env.cache.get("llm_usage", {}).items():
            slot = self.llm_usage.setdefault(method, {})
            for key, value in counts.items():
                slot[key] = slot.get(key, 0) + int(value)

    @staticmethod
    def _retrieve(
        mem: Memory,
        method: BenchMethod,
        query: str,
        user_id: str,
        k: int,
        fixed: dict[str, tuple[list[Item], float]],
    ) -> tuple[list[Item], float]:
        """Items and latency (ms); a query-independent method runs once per store."""
        if method.query_independent and method.name in fixed:
            return fixed[method.name]
        start = time.perf_counter()
        items = method.retrieve(mem, query, user_id, k)
        result = items, (time.perf_counter() - start) * 1000
        if method.query_independent:
            fixed[method.name] = result
        return result

    def _probe(
        self,
        mem: Memory,
        plan: Plan,
        probe: Probe,
        tracer: Tracer,
        fixed: dict[str, tuple[list[Item], float]],
        answer_fn: AnswerFn | None,
    ) -> list[Record]:
        out = []
        for method in self.methods:
            cached: tuple[list[Item], float, dict[str, Any]] | None = None
            for k in self.ks:
                if cached is None or not method.k_independent:
                    items, latency = self._retrieve(
                        mem, method, probe.query, self.user_id(plan), k, fixed
                    )
                    extra = answer_fn(probe, method.name, k, items) if answer_fn else {}
                    cached = (items, latency, extra)
                items, latency, extra = cached[0], cached[1], dict(cached[2])
                hit, answer_hit, rank = score(probe, items, tracer)
                for name, gold in probe.also.items():
                    extra[f"hit_{name}"] = any(tracer.turns(i) & gold for i in items)
                out.append(
                    Record(
                        probe.id,
                        method.name,
                        k,
                        hit,
                        answer_hit,
                        rank,
                        len(items),
                        sum(i.tokens for i in items),
                        round(latency, 3),
                        extra,
                        dict(Counter(i.route for i in items)),
                    )
                )
        return out


def store_summary(stats: list[dict[str, int]]) -> dict[str, Any]:
    if not stats:
        return {"n": 0}
    return {
        "n": len(stats),
        "memories_mean": round(statistics.fmean(s["memories"] for s in stats), 2),
        "superseded_mean": round(statistics.fmean(s["superseded"] for s in stats), 2),
        "turns_mean": round(statistics.fmean(s["turns"] for s in stats), 2),
    }


def usage_summary(usage: dict[str, dict[str, int]]) -> dict[str, Any]:
    """Per method: totals and per-query means of LLM calls and tokens at query time."""
    out: dict[str, Any] = {}
    for method, counts in usage.items():
        queries = max(1, counts.get("queries", 0))
        means = {f"{k}_per_query": round(v / queries, 3) for k, v in counts.items()}
        means.pop("queries_per_query", None)
        out[method] = {**counts, **means}
    return out


def consolidation_summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per consolidator and stage: runs, total and mean seconds, and summed counters."""
    out: dict[str, Any] = {}
    for run in runs:
        slot = out.setdefault(run["consolidator"], {}).setdefault(run["stage"], {"runs": 0})
        slot["runs"] += 1
        for key, value in run.items():
            if key in ("consolidator", "stage") or not isinstance(value, int | float):
                continue
            slot[key] = round(slot.get(key, 0) + value, 3)
    for stages in out.values():
        for slot in stages.values():
            if "seconds" in slot:
                slot["seconds_mean"] = round(slot["seconds"] / slot["runs"], 3)
    return out
