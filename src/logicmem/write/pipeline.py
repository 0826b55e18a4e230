"""``add``: store raw turns first (one transaction), then extract, merge and supersede.

Order matters for safety: turns are committed before any model is called, so a crash
or an unreachable LLM never loses what the user said. Extraction failures are recorded
as events (``logicmem stats``) and fall back to the rule extractor.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from itertools import groupby
from typing import Any

import numpy as np

from logicmem.config import ExtractSettings, Settings, check_extract_mode
from logicmem.models.embed.base import Embedder
from logicmem.models.llm.base import LLM
from logicmem.store.base import Store
from logicmem.types import AddResult, MemoryEntry, Scope, Turn
from logicmem.write.base import (
    EXTRACTORS,
    WRITE_HOOKS,
    Candidate,
    ExtractionError,
    Extractor,
    WriteHook,
    hook_version,
)
from logicmem.write.categorize import PrototypeCategorizer
from logicmem.write.novelty import adds_information
from logicmem.write.remainder import introduced, parts, rest
from logicmem.write.retract import (
    PARTED,
    Retraction,
    by_pronoun,
    detect,
    each_told,
    forgotten_by_meaning,
    holds_a_value,
    left_told,
    readings,
    restatable,
    retracted,
    stands_for,
    treated,
)
from logicmem.write.supersede import (
    bare_relations,
    conflicts,
    held_slots,
    may_change_value,
    only_one,
    restated,
    same_holder,
    slots_of,
    valued,
)

NEIGHBOURS = 50  # existing memories checked for duplicates and supersession per candidate
DUPLICATE_CHECKS = 8  # of those above the dedup threshold, the closest checked for novelty


def build_hooks(
    store: Store, embedder: Embedder, llm: Callable[[], LLM | None], settings: Settings
) -> list[WriteHook]:
    """Every registered write hook its settings turn on, in registration-name order."""
    names = WRITE_HOOKS.names()
    hooks = [WRITE_HOOKS.create(name, store, embedder, llm, settings) for name in names]
    return [hook for hook in hooks if hook is not None]


INDEX_BATCH = 1000  # memories per call of the write hooks when indexing is resumed


class WritePipeline:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        llm_factory: Callable[[], LLM | None],
        settings: ExtractSettings,
        hooks: Sequence[WriteHook] = (),
    ) -> None:
        check_extract_mode(settings.mode)  # settings built by hand skip load_settings
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self._llm_factory = llm_factory
        # The fallback when another extractor fails or finds nothing.
        self.rules = EXTRACTORS.create("rules", settings, llm_factory)
        self.categorizer = PrototypeCategorizer(embedder)
        self.hooks: list[WriteHook] = list(hooks)

    @property
    def index_version(self) -> str:
        """The version of the write hooks, stamped on each memory they index: their
        versions joined, or ``none`` when no hook is on."""
        return "+".join(hook_version(hook) for hook in self.hooks) or "none"

    def extractor(self) -> Extractor:
        """The extractor ``extract.mode`` names in ``EXTRACTORS``; ``auto``: the LLM one
        when the LLM is capable (a configured server), else the rules."""
        mode = self.settings.mode
        if mode == "auto":
            llm = self._llm_factory()
            mode = "llm" if llm is not None and llm.capable else "rules"
        if mode == "rules":
            return self.rules
        return EXTRACTORS.create(mode, self.settings, self._llm_factory)

    def warm_up(self) -> None:
        """Build the lazily built parts of the write path now (see ``Memory.warm_up``)."""
        self.categorizer.warm_up()
        for hook in self.hooks:
            warm = getattr(hook, "warm_up", None)
            if warm is not None:
                warm()

    def add(self, turns: list[Turn], *, infer: bool = True, defer: bool = False) -> AddResult:
        """Commit the turns, then extract and integrate their memories; with ``defer``,
        only commit them, pending and unclaimed, for a later ``resume`` (a background
        job) to extract."""
        self.store.bind_embedder(self.embedder.name, self.embedder.dims)
        # Committed (pending) before any model call; a crash from here on leaves them
        # pending, and ``resume`` finishes them.
        new_turns = self.store.add_turns(turns, infer=infer, claim=not defer)
        result = AddResult(turns=[t.turn_id for t in new_turns])
        if defer:
            result.extractor = "deferred"
        elif new_turns:
            self._process(new_turns, infer, result)
        return result

    def resume(self, *, user_id: str | None = None) -> AddResult:
        """Finish the turns an interrupted write left pending, as the write would have:
        the same groups (one user, scope and session at a time), in the order said."""
        self.store.bind_embedder(self.embedder.name, self.embedder.dims)
        pending = self.store.claim_pending(user_id=user_id)
        result = AddResult(turns=[t.turn_id for t, _ in pending])
        key = lambda p: (p[0].user_id, p[0].agent_id, p[0].run_id, p[0].session_id, p[1])  # noqa: E731
        for (*_, infer), turns in groupby(pending, key=key):
            self._process([t for t, _ in turns], infer, result)
        unindexed = self.store.claim_unindexed(user_id=user_id)
        for scope, claimed in groupby(unindexed, key=lambda c: c[0]):
            ids = [memory_id for _, memory_id in claimed]
            # In batches, each read when its turn comes and marked done as it finishes:
            # the hooks see one batch of a whole store being reindexed (``Memory.reindex``)
            # at a time, only one batch's vectors are held, and a crash keeps what finished.
            for i in range(0, len(ids), INDEX_BATCH):
                batch = ids[i : i + INDEX_BATCH]
                stamp = self._index(scope, self.store.indexable(batch))
                self.store.mark_indexed(batch, stamp)
        return result

    def _process(self, turns: list[Turn], infer: bool, result: AddResult) -> None:
        if not infer:
            result.extractor = "verbatim"
            candidates = [
                Candidate(t.text, t.speaker, [t.turn_id], t.session_id, t.said_at)
                for t in turns
                if t.role != "assistant"
            ]
        else:
            candidates = self._extract(turns, result)
        self._integrate(turns, candidates, result)

    def _extract(self, turns: list[Turn], result: AddResult) -> list[Candidate]:
        extractor = self.extractor()
        result.extractor = extractor.name
        out: list[Candidate] = []
        for session_id, group in groupby(turns, key=lambda t: t.session_id):
            batch = list(group)
            # The turn said just before, when an earlier write stored it, goes with the batch
            # as context (an answer keeps the question it answers: ``rules.in_reply_to``);
            # what it says itself was extracted then.
            before = self.store.turn_before(batch[0])
            found = self._extract_batch(extractor, batch, before, session_id, result)
            if before is not None:
                found = [c for c in found if c.source_turns != [before.turn_id]]
            out.extend(found)
        return out

    def _extract_batch(
        self,
        extractor: Extractor,
        batch: list[Turn],
        before: Turn | None,
        session_id: str,
        result: AddResult,
    ) -> list[Candidate]:
        """One session's candidates, the rule extractor's when the extractor fails or finds
        nothing in turns with content."""
        if before is not None:
            batch = [before, *batch]
        try:
            found = extractor.extract(batch)
        except ExtractionError as exc:
            result.failures += 1
            self.store.record_event(
                "extraction_failure",
                batch[0].user_id,
                {"session": session_id, "turns": len(batch), "error": str(exc)},
            )
            found = self.rules.extract(batch)
            result.extractor = f"{extractor.name}+rules-fallback"
        else:
            if not found and extractor is not self.rules:
                fallback = self.rules.extract(batch)
                if fallback:
                    # An empty LLM answer for turns with content is a failure, not silence.
                    result.failures += 1
                    self.store.record_event(
                        "extraction_empty",
                        batch[0].user_id,
                        {"session": session_id, "turns": len(batch)},
                    )
                    found = fallback
        return found

    def _integrate(self, turns: list[Turn], candidates: list[Candidate], result: AddResult) -> None:
        """Commit the candidates' memories and the end of the turns' pending state in one
        transaction (a crash before it leaves the turns pending), then index them."""
        if not candidates:
            self.store.finish_turns(turns)
            return
        first = turns[0]
        scope = Scope(first.user_id, first.agent_id, first.run_id)
        texts = [c.text for c in candidates]
        vectors = self.embedder.embed(texts)
        categories = self.categorizer.categorize(texts, vectors)
        # Each candidate's closest stored memories (the store's vector index where it has one).
        neighbours = self.store.nearest(scope, vectors, NEIGHBOURS)
        existing = self.store.get_memories(sorted({m for row in neighbours for m, _ in row}))
        added: list[tuple[MemoryEntry, np.ndarray]] = []
        merged: dict[str, list[Candidate]] = defaultdict(list)
        threshold = self.settings.dedup_threshold
        said_with = {t.turn_id: t.metadata for t in turns}
        with self.store.transaction():
            for i, cand in enumerate(candidates):
                target = self._duplicate_of(
                    cand.text, vectors[i], neighbours[i], existing, added, threshold
                )
                if target is not None:
                    merged[target].append(cand)
                    continue
                entry = MemoryEntry(
                    id=uuid.uuid4().hex,
                    user_id=scope.user_id,
                    agent_id=scope.agent_id,
                    run_id=scope.run_id,
                    text=cand.text,
                    category=cand.category or categories[i],
                    said_at=cand.said_at,
                    session_id=cand.session_id,
                    source_turns=list(cand.source_turns),
                    metadata={
                        **_caller_metadata(cand.source_turns, said_with),
                        "subject": cand.subject,
                        **cand.extras,
                    },
                )
                slots = slots_of(entry.text)
                if slots:
                    entry.metadata["slots"] = slots
                # Retractions need a match in meaning: the candidate's own neighbours (and
                # this batch) hold what it can end or be ended by; scanning every
                # candidate's neighbours for each one grew with the store (~50 x batch).
                near = {m: existing[m] for m, _ in neighbours[i] if m in existing}
                newer = self._replaced_by(entry, near, added)
                kept = None
                if newer is not None:
                    # An older statement arriving late: valid only until the newer one began,
                    # but for what of it the newer one does not end.
                    entry.valid_until = newer.valid_from or newer.said_at
                    entry.superseded_by = newer.id
                    kept = self._rest_of(entry, self._ended_by(entry, newer))
                detail = {"extractor": result.extractor} | _kept(kept)
                self.store.add_memory(entry, vectors[i], detail)
                result.added.append(entry)
                added.append((entry, vectors[i]))
                if kept is not None and entry.valid_until is not None:
                    self._keep(kept, entry, entry.valid_until, added, result)
                if slots or may_change_value(entry.text):
                    result.superseded.extend(self._supersede(entry, existing, added, result))
                result.superseded.extend(self._retract(entry, near, added, result))
            self._merge(merged, result)
            self.store.finish_turns(turns)
        # The hooks index what was committed, outside the write lock (they call models);
        # until they finish, the memories stay claimed and ``resume`` would index them.
        stamp = self._index(scope, [(m, v) for m, v in added if m.status == "active"])
        self.store.mark_indexed([m.id for m, _ in added], stamp)

    def _index(self, scope: Scope, new: list[tuple[MemoryEntry, np.ndarray]]) -> str:
        """Run the hooks over ``new``; returns the version to stamp on them: each hook's
        ``version``, or the one it says judged them instead (``WriteHook.on_added``)."""
        if not new:
            return self.index_version
        entries, vectors = [m for m, _ in new], np.vstack([v for _, v in new])
        stamps = [h.on_added(scope, entries, vectors) or hook_version(h) for h in self.hooks]
        return "+".join(stamps) or "none"

    @staticmethod
    def _duplicate_of(
        text: str,
        vector: np.ndarray,
        neighbours: list[tuple[str, float]],
        existing: dict[str, MemoryEntry],
        added: list[tuple[MemoryEntry, np.ndarray]],
        threshold: float,
    ) -> str | None:
        """The active memory ``text`` repeats: embedded close to it and adding nothing.

        Closeness alone is not enough: embeddings blur the numbers, names, dates and
        negations that make "takes 20 mg" and "takes 40 mg" different facts."""
        close: list[tuple[float, MemoryEntry | None]] = [
            (cos, existing.get(mid)) for mid, cos in neighbours if cos >= threshold
        ]
        close += [(float(v @ vector), m) for m, v in added if float(v @ vector) >= threshold]
        close.sort(key=lambda c: -c[0])
        for _, old in close[:DUPLICATE_CHECKS]:
            if old is not None and old.status == "active" and not adds_information(text, old.text):
                return old.id
        return None

    def _supersede(
        self,
        entry: MemoryEntry,
        existing: dict[str, MemoryEntry],
        added: list[tuple[MemoryEntry, np.ndarray]],
        result: AddResult,
    ) -> list[str]:
        """Mark older memories of the same subject as superseded where ``entry`` gives a
        slot a new value (``conflicts``: a listed slot, or a changed measurement); what
        else such a memory said stays (``_rest_of``)."""
        subject = entry.metadata.get("subject")
        older = [m for m in existing.values() if m.status == "active"]
        older += [m for m, _ in added if m.id != entry.id and m.status == "active"]
        done = []
        only = self._only_one(entry, added)
        for old in older:
            if old.metadata.get("subject") != subject:
                continue
            if (old.said_at or "") > (entry.said_at or "~"):
                continue  # an older statement arriving late does not replace a newer one
            # The memory whole, or one of its clauses read alone ("Maya's son Leo goes to
            # Lincoln Elementary and he's in 2nd grade": the grade is Leo's).
            slots = conflicts(entry.text, old.text, only) or sorted(
                {
                    s
                    for part in parts(old.text, _subject(old))
                    for s in conflicts(entry.text, part, only)
                }
            )
            if slots:
                # Whose slot changed stays known: "Leo started third grade" closes "Maya's
                # son Leo is in 2nd grade", not that Leo is Maya's son.
                who = "" if "relationship" in slots else entry.text
                kept = self._rest_of(
                    old,
                    lambda t: bool(conflicts(entry.text, t, only)),
                    who,
                    _untouched(entry, old, only),
                )
                self.store.supersede(old.id, entry.id, {"slots": slots} | _kept(kept))
                old.status = "superseded"
                done.append(old.id)
                if kept is not None:
                    until = entry.valid_from or entry.said_at or entry.created_at
                    self._keep(kept, old, until, added, result)
        return done

    def _only_one(
        self, entry: MemoryEntry, added: list[tuple[MemoryEntry, np.ndarray]]
    ) -> dict[str, str]:
        """The one person each relation ``entry`` gives a slot to without a name stands
        for ("our son started at Westfield High": the son the user has named, when only
        one), read from everything the user has told (``supersede.only_one``); most
        memories give no such slot, and read nothing."""
        relations = bare_relations(entry.text)
        if not relations:
            return {}
        scope = Scope(entry.user_id, entry.agent_id, entry.run_id)
        # Closed memories too: a son told of before is still a son.
        told = [m.text for m in self.store.list_memories(scope, include_superseded=True)]
        told += [m.text for m, _ in added]
        return only_one(relations, told)

    def _replaced_by(
        self,
        entry: MemoryEntry,
        existing: dict[str, MemoryEntry],
        added: list[tuple[MemoryEntry, np.ndarray]],
    ) -> MemoryEntry | None:
        """The first active memory said after ``entry`` that ends it, if ``entry`` arrives
        late: one giving a slot a new value, one retracting it ("quit smoking" in June for
        "smokes" said in January), or, when ``entry`` is itself a retraction, one restating
        what it ended."""
        later = [
            other
            for other in _same_subject(entry, existing, added)
            if _said_before(entry, other) and self._ends_later(entry, other)
        ]
        return min(later, key=lambda m: m.said_at or "") if later else None

    def _ended_by(
        self, old: MemoryEntry, entry: MemoryEntry, reading: Retraction | None = None
    ) -> Callable[[str], bool]:
        """Whether ``entry`` ends a part of ``old`` (a clause, as text): as a retraction of
        it (by ``reading``, one of its readings, where given), or, where ``old`` is a
        retraction, by restating what it ended."""
        subject, embed = _subject(old), self.embedder.embed
        own = reading if reading is not None else detect(entry.text, subject)
        # "Forget the part about the loan" ends the clause that says it, not a clause near
        # it in meaning ("is saving for a house").
        meaning = forgotten_by_meaning(own, old.text, subject)

        def ends(part: str) -> bool:
            if own is not None:
                # what a healed injury was treated with ends with it ("he's in a cast")
                return bool(
                    retracted(own, subject, [replace(old, text=part)], embed, meaning=meaning)
                ) or treated(own, part, old.text, subject)
            if (slots_of(part) or valued(part)) and conflicts(entry.text, part):
                return True
            ended = detect(part, subject)
            return restatable(ended) and bool(retracted(ended, subject, [entry], embed))

        return ends

    def _ended_by_any(
        self, old: MemoryEntry, entry: MemoryEntry, every: Sequence[Retraction | None]
    ) -> Callable[[str], bool]:
        """``_ended_by`` by any of ``entry``'s readings ``every`` (``retract.readings``)."""
        ends = [self._ended_by(old, entry, reading) for reading in every]
        return lambda part: any(e(part) for e in ends)

    def _ends_later(self, entry: MemoryEntry, other: MemoryEntry) -> bool:
        """Whether ``other``, said after ``entry``, ends it (see ``_replaced_by``)."""
        subject, embed = _subject(entry), self.embedder.embed
        if (slots_of(entry.text) or valued(entry.text)) and conflicts(other.text, entry.text):
            return True
        retraction = detect(other.text, subject)
        if retraction is not None:
            return bool(
                retracted(retraction, subject, [entry], embed)
                or _parts_ended(retraction, subject, [entry], embed)
            )
        own = detect(entry.text, subject)
        # "quit smoking" (Jan) after "smokes again" (Jun)
        return restatable(own) and bool(retracted(own, subject, [other], embed))

    def _retract(
        self,
        entry: MemoryEntry,
        existing: dict[str, MemoryEntry],
        added: list[tuple[MemoryEntry, np.ndarray]],
        result: AddResult,
    ) -> list[str]:
        """Close what ``entry`` ends (``retract``): the facts each of its readings retracts
        (``retract.readings``: "quit smoking and stopped drinking coffee" ends both), or,
        when it reads as none, the retractions said before it that ended a fact it
        restates; what else such a memory said stays (``_rest_of``)."""
        said: list[Retraction | None] = [*readings(entry.text, _subject(entry))] or [None]
        closed: list[str] = []
        for reading in said:
            # one reading after another: what a reading keeps of a memory, the next may end
            closed += self._retract_by(entry, reading, said, existing, added, result)
        own = said[0]
        if own is not None and own.kind == "forget":
            # The request names what the user asked to forget: it leaves retrieval too.
            until = entry.valid_from or entry.said_at or entry.created_at
            self.store.close_memory(
                entry.id,
                until=until,
                by=entry.id,
                event="RETRACT",
                detail={"cue": own.cue, "request": "forget", "closed": closed},
            )
            entry.status, entry.valid_until, entry.superseded_by = "superseded", until, entry.id
            if not closed:
                result.unmatched_forgets.append(entry.id)  # nothing it names was found
            closed.append(entry.id)
        return closed

    def _retract_by(
        self,
        entry: MemoryEntry,
        own: Retraction | None,
        every: Sequence[Retraction | None],
        existing: dict[str, MemoryEntry],
        added: list[tuple[MemoryEntry, np.ndarray]],
        result: AddResult,
    ) -> list[str]:
        """Close what the reading ``own`` of ``entry`` ends, or, with no reading, the
        retractions ``entry`` restates a fact of (``_retract``); what stays of a memory
        closed is what none of ``every`` reading ends."""
        subject, embed = _subject(entry), self.embedder.embed
        older = [m for m in _same_subject(entry, existing, added) if not _said_before(entry, m)]
        ended: list[tuple[MemoryEntry, float, str]] = []
        if own is not None:
            # Not what itself ends something, unless it also states a new value (a changed
            # dose is the dose taken now: stopping the drug ends it too). A request to
            # forget reaches anything said ("forget that I got laid off").
            facts = [m for m in older if own.kind == "forget" or _states_a_fact(m, subject)]
            found = retracted(own, subject, facts, embed)
            if not (found and own.kind in ("correction", "change", "update")):  # one at most
                done = {m.id for m, _ in found}
                rest_of = [m for m in facts if m.id not in done]
                # Once a fact is found, a request to forget ends others only in their words.
                found += _parts_ended(own, subject, rest_of, embed, meaning=not found)
            ended = [(m, sim, own.cue) for m, sim in found]
        else:
            for old in older:
                retraction = detect(old.text, subject)
                found = (
                    retracted(retraction, subject, [entry], embed) if restatable(retraction) else []
                )
                ended += [(old, sim, "restated") for _, sim in found]
        until = entry.valid_from or entry.said_at or entry.created_at
        # Who the closed memory introduces stays known ("my daughter turned 8" closes
        # "Maya's daughter Zoe is 7", not that Zoe is her daughter); not for a request to
        # forget, nor a death.
        naming = entry.text if own is None or own.kind not in ("forget", "death") else ""
        if own is not None and own.cue == PARTED:
            naming = ""  # "Maya's wife is named Priya" is what a parting ends
        for old, sim, cue in ended:
            # What a parting or an age reached leaves of a memory told anew ("Maya's husband
            # Tom is a teacher" -> "Tom is a teacher").
            start = left_told(own, old.text, subject) if own is not None else None
            # "his leg has healed" tells of the one "his" stands for, by their relation
            told = f"{naming} {stands_for(own, old.text, subject)}" if own and naming else naming
            kept = self._rest_of(old, self._ended_by_any(old, entry, every), told, start=start)
            self.store.close_memory(
                old.id,
                until=until,
                by=entry.id,
                event="RETRACT",
                detail={"cue": cue, "similarity": round(sim, 3)} | _kept(kept),
            )
            old.status, old.valid_until, old.superseded_by = "superseded", until, entry.id
            if kept is not None:
                self._keep(kept, old, until, added, result)
        return [old.id for old, _, _ in ended]

    def _rest_of(
        self,
        old: MemoryEntry,
        ends: Callable[[str], bool],
        naming: str = "",
        untouched: Sequence[str] = (),
        start: str | None = None,
    ) -> MemoryEntry | None:
        """What ``old`` still says once a later statement ends part of it: the clauses
        ``ends`` leaves standing (``remainder.rest``), as a memory not yet stored, or None
        when all of it ends. "Maya stopped taking lisinopril" ends "Maya takes lisinopril
        and is allergic to penicillin", and the allergy stays. ``untouched``: what an ended
        clause said that the later statement leaves as it was, told on its own
        (``supersede.restated``), unless what stays already says it. With ``naming``, the
        later statement, who ``old`` introduces that it names without their relation stays
        too (``remainder.introduced``). With ``start``, ``old`` as the later statement
        leaves it told (``retract.left_told``): split the same way, and kept whole when
        ``ends`` ends none of it."""
        said = old.text if start is None else start
        text = rest(said, _subject(old), ends)
        if text is None and said != old.text and not ends(said):
            text = said
        held = slots_of(text or "")
        told = [s for s in untouched if not set(slots_of(s).items()) <= set(held.items())]
        if told:
            text = " ".join([text or "", *told]).strip()
        who = introduced(old.text, _subject(old), naming, text or "")
        if who:
            text = " ".join([text or "", *who]).strip()
        if text is None:
            return None
        metadata = {k: v for k, v in old.metadata.items() if k != "slots"}
        slots = slots_of(text)
        return MemoryEntry(
            id=uuid.uuid4().hex,
            user_id=old.user_id,
            agent_id=old.agent_id,
            run_id=old.run_id,
            text=text,
            said_at=old.said_at,
            session_id=old.session_id,
            source_turns=list(old.source_turns),
            metadata=metadata | {"kept_from": old.id} | ({"slots": slots} if slots else {}),
        )

    def _keep(
        self,
        kept: MemoryEntry,
        old: MemoryEntry,
        since: str,
        added: list[tuple[MemoryEntry, np.ndarray]],
        result: AddResult,
    ) -> None:
        """Store ``kept`` (``_rest_of``), valid from ``since``, when ``old`` stopped being."""
        vector = self.embedder.embed([kept.text])
        kept.category = self.categorizer.categorize([kept.text], vector)[0]
        kept.valid_from = since
        self.store.add_memory(kept, vector[0], {"extractor": "remainder", "kept_from": old.id})
        result.added.append(kept)
        added.append((kept, vector[0]))

    def _merge(self, merged: dict[str, list[Candidate]], result: AddResult) -> None:
        """Add the turns of candidates judged repeats to the memories they repeat; the
        MERGE event keeps each statement as extracted, so that a later version of the
        novelty rules can judge it again (``rejudge_merges``)."""
        for memory_id, candidates in merged.items():
            current = self.store.get_memory(memory_id)
            if current is None:
                continue
            sources = [t for c in candidates for t in c.source_turns]
            union = list(dict.fromkeys([*current.source_turns, *sources]))
            if union != current.source_turns:
                self.store.update_memory(
                    memory_id,
                    event="MERGE",
                    source_turns=union,
                    detail={
                        "added_turns": [s for s in sources if s not in current.source_turns],
                        "statements": [
                            {"text": c.text, "subject": c.subject, "turns": c.source_turns}
                            for c in candidates
                            if any(t not in current.source_turns for t in c.source_turns)
                        ],
                    },
                )
            result.merged.append(memory_id)

    def rejudge_merges(self, user_id: str) -> AddResult:
        """Judge again, with the current novelty rules (``adds_information``), every
        statement that was merged into one of the user's memories as a repeat of it, and
        store as its own memory each one now found to say something the memory does not
        (as after an upgrade that fixed a wrong merge: "I'm allergic to peanuts" merged
        into "my son is allergic to peanuts" left the speaker's own allergy in no memory).
        A restored statement goes through the write path as when it was said (duplicates,
        supersession, retraction, the write hooks), with its turns as provenance; the
        memory it was merged into keeps them too. Idempotent: a statement restored once is
        a repeat of its own memory the next time.

        The statement is the one the MERGE event recorded. Events written before it
        recorded statements hold only the turns: their statements are extracted again
        from those turns (with the turn said before, as at write time) when the memory's
        own extractor needs no model (the rule extractor, or verbatim turns); statements
        an LLM extracted then cannot be rebuilt and stay merged."""
        result = AddResult(turns=[], extractor="rejudge")
        restore: dict[str, tuple[list[Turn], list[Candidate]]] = {}
        for memory in self.store.list_memories(Scope(user_id), include_superseded=True):
            if len(memory.source_turns) < 2:
                continue
            rows = self.store.history(memory.id)
            made_by = next(
                (str(r.detail.get("extractor", "")) for r in rows if r.event == "ADD"), ""
            )
            for row in rows:
                if row.event != "MERGE":
                    continue
                for turns, cand in self._merged_statements(memory, row.detail, made_by):
                    if adds_information(cand.text, memory.text):
                        held = restore.setdefault(turns[0].turn_id, (turns, []))
                        if cand.text not in {c.text for c in held[1]}:
                            held[1].append(cand)
        for turns, candidates in restore.values():
            self._integrate(turns, candidates, result)
        return result

    def _merged_statements(
        self, memory: MemoryEntry, detail: dict[str, Any], made_by: str
    ) -> list[tuple[list[Turn], Candidate]]:
        """The statements a MERGE event added to ``memory``, each with the stored turns it
        came from (none whose turns are gone: a deleted turn is not brought back)."""
        scope = Scope(memory.user_id, memory.agent_id, memory.run_id)
        added = [str(t) for t in detail.get("added_turns") or []]
        turns = {t.turn_id: t for t in self.store.get_turns(scope, turn_ids=added)}
        out: list[tuple[list[Turn], Candidate]] = []
        statements = detail.get("statements")
        if statements is not None:
            for st in statements:
                own = [turns[t] for t in st.get("turns") or [] if t in turns]
                if not own or len(own) < len(st.get("turns") or []):
                    continue
                first = own[0]
                out.append(
                    (
                        own,
                        Candidate(
                            str(st["text"]),
                            str(st.get("subject") or first.speaker),
                            [t.turn_id for t in own],
                            first.session_id,
                            first.said_at,
                        ),
                    )
                )
            return out
        for turn_id in added:
            turn = turns.get(turn_id)
            if turn is None:
                continue
            if made_by == "verbatim":
                found = [
                    Candidate(turn.text, turn.speaker, [turn_id], turn.session_id, turn.said_at)
                ]
            elif made_by.startswith("rules"):
                before = self.store.turn_before(turn)
                batch = [turn] if before is None else [before, turn]
                found = [c for c in self.rules.extract(batch) if turn_id in c.source_turns]
            else:
                continue
            out += [([turn], c) for c in found]
        return out


RESERVED_METADATA = ("subject", "slots", "kept_from")


def _caller_metadata(
    source_turns: Sequence[str], said_with: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The metadata the caller gave with the turns a memory came from (``add(...,
    metadata=...)`` and each message's own), so search filters on it find the memory."""
    out: dict[str, Any] = {}
    for turn_id in source_turns:
        out.update(said_with.get(turn_id) or {})
    for reserved in RESERVED_METADATA:  # the write path's own keys
        out.pop(reserved, None)
    return out


def _kept(kept: MemoryEntry | None) -> dict[str, str]:
    """The detail an event of closing gives of the part kept (``_rest_of``), if any."""
    return {"kept": kept.id} if kept is not None else {}


def _parts_ended(
    retraction: Retraction,
    subject: str,
    facts: Sequence[MemoryEntry],
    embed: Callable[[list[str]], np.ndarray],
    *,
    meaning: bool = True,
) -> list[tuple[MemoryEntry, float]]:
    """The facts of several clauses that ``retraction`` ends in one of them, read alone,
    though not as a whole: "Tom quit smoking" ends "Maya is diabetic and her husband Tom
    smokes", whose first clause is Maya's (``remainder.parts``). ``meaning``: as in
    ``retracted``."""
    split = [
        (m, replace(m, id=f"{m.id}#{i}", text=part))
        for m in facts
        # "Maya's wife and Maya are vegetarian", told of each (``each_told``).
        for i, part in enumerate(parts(each_told(retraction, m.text, subject), _subject(m)))
    ]
    if split and by_pronoun(retraction):
        # whom "his" or "her" stands for is read over every fact, of one clause or more
        told = {m.id for m, _ in split}
        split += [(m, m) for m in facts if m.id not in told]
    if not split:
        return []
    whole = {part.id: m for m, part in split}
    best: dict[str, tuple[MemoryEntry, float]] = {}
    parts_said = [part for _, part in split]
    for part, sim in retracted(retraction, subject, parts_said, embed, meaning=meaning):
        m = whole[part.id]
        if m.id not in best or sim > best[m.id][1]:
            best[m.id] = (m, sim)
    return list(best.values())


def _states_a_fact(entry: MemoryEntry, subject: str) -> bool:
    """Whether ``entry`` holds a fact an ending can end: it ends nothing itself, or it
    states a new value (a changed dose is the dose taken now)."""
    retraction = detect(entry.text, subject)
    return retraction is None or holds_a_value(retraction)


def _subject(entry: MemoryEntry) -> str:
    return str(entry.metadata.get("subject") or entry.user_id)


def _said_before(entry: MemoryEntry, other: MemoryEntry) -> bool:
    """``entry`` was said before ``other`` (both dated: an undated memory is news)."""
    return bool(entry.said_at and other.said_at and entry.said_at < other.said_at)


def _same_subject(
    entry: MemoryEntry,
    existing: dict[str, MemoryEntry],
    added: list[tuple[MemoryEntry, np.ndarray]],
) -> list[MemoryEntry]:
    """The active memories of ``entry``'s subject it may replace or be replaced by."""
    pool = {**existing, **{m.id: m for m, _ in added}}
    subject = entry.metadata.get("subject")
    return [
        m
        for m in pool.values()
        if m.id != entry.id and m.status == "active" and m.metadata.get("subject") == subject
    ]


def _untouched(
    new: MemoryEntry, old: MemoryEntry, only: Mapping[str, str] | None = None
) -> list[str]:
    """What the clauses of ``old`` that ``new`` gives a new value said of the same holder's
    other slots, which ``new`` does not speak of, each as a sentence (``restated``): "Mia
    is in 5th grade now" closes "Maya's daughter Mia is in 4th grade at Lincoln
    Elementary", and her school stays."""
    said = held_slots(new.text)
    out: list[str] = []
    for part in parts(old.text, _subject(old)) or [old.text]:
        changed = conflicts(new.text, part, only)
        if not changed:
            continue
        held = held_slots(part)
        holder = next((held[s][0] for s in changed if s in held), None)
        leave = set(changed) | set(said)
        if "household" in said and same_holder(said["household"][0], holder, only):
            leave |= {"residence", "dwelling"}  # moved in with someone: the old town is not told
        if "employer" in changed:
            leave.add("department")  # a department is one of the old employer's
        out += restated(part, leave, holder)
    return list(dict.fromkeys(out))
