"""The InMind always-in-state probe: one markdown profile per user, placed whole in context.

After each session the ``profile`` consolidator folds the session's new memories into the
user's profile. With a capable LLM the model rewrites the whole file (InMind App. 17),
each bullet ending with the short ids of the memories it comes from
(``- Allergic to tree nuts [m12]``); the code strips the tags and keeps them as per-line
provenance. Without one the profile is extractive: critical memories first, then the most
recent, one memory a line. Either way it is cut to ``max_lines`` lines and ``max_bytes``
bytes. ``profile_llm`` returns the whole profile whatever the request and k: it is the
reference the visible slice has to beat at a far smaller budget.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from logicmem.errors import ConfigError, ModelError
from logicmem.models.llm.base import LLM
from logicmem.routes.base import Consolidator, Method, RouteEnv, valid_at
from logicmem.routes.visible.profile_text import (
    RETRY,
    InvalidReply,
    fit,
    parse_reply,
    render,
    signature,
    size_of,
    updater_prompt,
)
from logicmem.routes.visible.repo import Profile, ProfileLine, VisibleRepository
from logicmem.types import Hit, MemoryEntry, Scope

LLM_KIND = "llm"
EXTRACTIVE_KIND = "extractive"
MAX_FAILED = 50  # failed session ids kept in the watermark, for inspection
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def _turns(ids: Sequence[str], entries: dict[str, MemoryEntry]) -> list[str]:
    found = [t for i in ids if i in entries for t in entries[i].source_turns]
    return list(dict.fromkeys(found))


class ProfileConsolidator(Consolidator):
    """Folds each session's new memories into the user's profile, once per session.

    The watermark (``state["folded"]``: memory id -> signature) is saved with the profile
    in one transaction after every session, so a crash loses at most that session's work.
    An invalid reply after every attempt keeps the previous profile, records a
    ``profile_llm_failure`` event and counts the session as folded: at temperature 0 the
    same prompt would fail again.
    """

    name = "profile"

    def consolidate(self, env: RouteEnv, scope: Scope) -> dict[str, Any]:
        user = Scope(scope.user_id)  # one profile per user, as in the paper
        llm = self._llm(env)
        kind = LLM_KIND if llm is not None else EXTRACTIVE_KIND
        current = VisibleRepository.of(env.store).load_profile(user.user_id)
        if current is None or current.kind != kind:  # a new kind starts from scratch
            current = Profile("", 0, kind, [], {})
        folded: dict[str, str] = dict(current.state.get("folded", {}))
        entries = env.store.list_memories(user, include_superseded=True)
        alive = {e.id for e in entries}
        pending = [e for e in entries if folded.get(e.id) != signature(e)]
        forgotten = [i for i in folded if i not in alive]
        stats: dict[str, Any] = {"kind": kind, "sessions": 0, "llm_calls": 0}
        stats.update(failures=0, truncated=0)
        if pending or forgotten:
            if llm is None:
                self._extractive(env, user, entries, pending, stats)
            else:
                self._with_llm(env, llm, user, entries, current, pending, stats)
        profile = VisibleRepository.of(env.store).load_profile(user.user_id)
        return {**stats, **size_of(profile.lines if profile else [])}

    @staticmethod
    def _llm(env: RouteEnv) -> LLM | None:
        """The updater, or None for an extractive profile (``profile.mode``)."""
        mode = env.profile.mode
        if mode == "extractive":
            return None
        llm = env.llm()
        if llm is None and mode == "llm":
            raise ConfigError(
                "profile.mode is 'llm' but no LLM is configured: set LOGICMEM_LLM=openai with "
                "LOGICMEM_LLM_BASE_URL and LOGICMEM_LLM_MODEL, or use profile.mode 'extractive'"
            )
        if llm is None or (mode == "auto" and not llm.capable):
            return None
        return llm

    # -- extractive -----------------------------------------------------------------------
    def _extractive(
        self,
        env: RouteEnv,
        user: Scope,
        entries: list[MemoryEntry],
        pending: list[MemoryEntry],
        stats: dict[str, Any],
    ) -> None:
        """Critical memories (most critical, then newest, first), then the most recent;
        a line that does not fit the byte limit is skipped for shorter ones after it."""
        cfg = env.profile
        active = [e for e in entries if e.status == "active"]
        position = {e.id: i for i, e in enumerate(active)}
        critical = [
            c
            for c in VisibleRepository.of(env.store).critical_memories(user)
            if c.memory_id in position
        ]
        critical.sort(key=lambda c: (-c.score, -position[c.memory_id]))
        order = [c.memory_id for c in critical] + [e.id for e in reversed(active)]
        by_text: dict[str, ProfileLine] = {}
        used = 0
        by_id = {e.id: e for e in active}
        for memory_id in dict.fromkeys(order):
            entry = by_id[memory_id]
            text = "- " + " ".join(entry.text.split())
            key = " ".join(re.findall(r"\w+", text.lower()))
            if key in by_text:  # the same fact stored twice: one line, both memories
                by_text[key].memory_ids.append(entry.id)
                by_text[key].source_turns += entry.source_turns
                continue
            need = len(text.encode()) + (1 if by_text else 0)
            if len(by_text) >= cfg.max_lines:
                break
            if used + need > cfg.max_bytes:
                continue
            by_text[key] = ProfileLine(text, [entry.id], list(entry.source_turns))
            used += need
        lines = list(by_text.values())
        folded = {e.id: signature(e) for e in entries}
        VisibleRepository.of(env.store).set_profile(
            user.user_id, render(lines), kind=EXTRACTIVE_KIND, lines=lines, state={"folded": folded}
        )
        stats["sessions"] = len({e.session_id for e in pending})
        stats["left_out"] = len(active) - sum(len(line.memory_ids) for line in lines)

    # -- with the LLM ---------------------------------------------------------------------
    def _with_llm(
        self,
        env: RouteEnv,
        llm: LLM,
        user: Scope,
        entries: list[MemoryEntry],
        current: Profile,
        pending: list[MemoryEntry],
        stats: dict[str, Any],
    ) -> None:
        store = env.store
        alive = {e.id for e in entries}
        # A line whose memories were all deleted leaves the always-visible file.
        lines = [ln for ln in current.lines if not ln.memory_ids or alive & set(ln.memory_ids)]
        folded = {i: s for i, s in current.state.get("folded", {}).items() if i in alive}
        failed: list[str] = list(current.state.get("failed", []))
        sessions: dict[str, list[MemoryEntry]] = {}
        for entry in pending:
            sessions.setdefault(entry.session_id or "", []).append(entry)
        if not sessions:  # only deletions
            state = {"folded": folded, "failed": failed}
            VisibleRepository.of(store).set_profile(
                user.user_id, render(lines), kind=LLM_KIND, lines=lines, state=state
            )
        for session_id, group in sessions.items():
            new = [e for e in group if e.status == "active"]
            if new:
                stats["sessions"] += 1
                try:
                    lines = self._rewrite(env, llm, user, lines, new, session_id, stats)
                except InvalidReply as exc:
                    stats["failures"] += 1
                    failed = [*failed, session_id][-MAX_FAILED:]
                    store.record_event(
                        "profile_llm_failure",
                        user.user_id,
                        {"session": session_id, "model": llm.name, "error": str(exc)[:300]},
                    )
            folded.update({e.id: signature(e) for e in group})
            state = {"folded": folded, "failed": failed}
            VisibleRepository.of(store).set_profile(
                user.user_id, render(lines), kind=LLM_KIND, lines=lines, state=state
            )

    def _rewrite(
        self,
        env: RouteEnv,
        llm: LLM,
        user: Scope,
        lines: list[ProfileLine],
        new: list[MemoryEntry],
        session_id: str,
        stats: dict[str, Any],
    ) -> list[ProfileLine]:
        """One session folded in: the model's whole new profile, validated and cut."""
        cfg = env.profile
        messages, by_short = updater_prompt(lines, new, session_id, cfg.max_lines)
        problem = ""
        for _ in range(cfg.llm_attempts):
            stats["llm_calls"] += 1
            try:
                reply = llm.chat(messages, max_tokens=cfg.max_output_tokens)
            except ModelError as exc:  # a failed attempt; reported if every attempt fails
                problem = f"{type(exc).__name__}: {exc}"
                continue
            try:
                parsed = parse_reply(reply, by_short)
            except InvalidReply as exc:
                problem = str(exc)
                messages = [
                    *messages[:2],
                    {"role": "assistant", "content": reply[:4000]},
                    {"role": "user", "content": RETRY.format(problem=problem)},
                ]
                continue
            known = {e.id: e for e in new}
            known.update(env.store.get_memories([i for i in by_short.values() if i not in known]))
            drafted = [ProfileLine(text, ids, _turns(ids, known)) for text, ids in parsed]
            kept, cut = fit(drafted, cfg.max_lines, cfg.max_bytes)
            if cut:
                stats["truncated"] += 1
                env.store.record_event(
                    "profile_truncated",
                    user.user_id,
                    {"session": session_id, **size_of(drafted), "kept_lines": len(kept)},
                )
            return kept
        raise InvalidReply(f"no valid profile after {cfg.llm_attempts} attempts: {problem}")


class ProfileMethod(Method):
    """The whole always-visible profile, one hit per line, whatever the query and k.

    It reads what the ``profile`` consolidator built (``Memory.consolidate`` or
    ``logicmem consolidate``); a user without a profile yet gets no hits. The profile is
    of now: asked about a past moment (``RouteEnv.as_of``), only the lines whose every
    memory was valid then remain.
    """

    name = "profile_llm"
    consolidators = ("profile",)
    budget_free = True

    def search(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> list[Hit]:
        profile = VisibleRepository.of(env.store).load_profile(scope.user_id)
        if profile is None:
            return []
        size = size_of(profile.lines)
        lines = list(enumerate(profile.lines, 1))
        if env.as_of is not None:
            cited = env.store.get_memories([m for line in profile.lines for m in line.memory_ids])
            then = {mid for mid, m in cited.items() if valid_at(m, env.as_of)}
            lines = [(n, li) for n, li in lines if li.memory_ids and set(li.memory_ids) <= then]
        return [
            Hit(
                id=f"profile:{scope.user_id}:{n}",
                text=_BULLET.sub("", line.text).strip(),
                score=1.0,
                score_kind="always_visible",
                route="profile",
                reason=f"always-visible profile ({profile.kind}), line {n}",
                source_turns=list(line.source_turns),
                rank=n,
                extras={
                    "profile_kind": profile.kind,
                    "profile_version": profile.version,
                    "line": n,
                    "memory_ids": list(line.memory_ids),
                    **{f"profile_{key}": value for key, value in size.items()},
                },
            )
            for n, line in lines
        ]
