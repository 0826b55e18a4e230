"""The user's anticipation keys as arrays, matched against a request in one pass.

A user with thousands of standing constraints holds hundreds of thousands of key rows
(memory, key), but few distinct key texts: most keys are the knowledge resource's
situations, shared by every memory linked to the same entry. So the index keeps

- the distinct key texts, their vectors and an inverted index from a key's first token to
  the keys that start with it (a key is *named* when its tokens occur contiguously in the
  request's, e.g. "lilies" in "Should I get lilies for the table?");
- per row, which distinct key and which memory it belongs to, and how specific the key is
  (``KnowledgeBase.specificity``), with rows grouped by memory.

Per request: one matrix product over the distinct keys, one n-gram look-up over the
request's tokens, then segment maxima per memory (``np.maximum.reduceat``) — no Python
loop over keys or memories. Built once per version of the user's keys (the store returns
the same matrix object while nothing changed) and cached in the route environment.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from logicmem.routes.visible.kb import KnowledgeBase
from logicmem.routes.visible.repo import MemoryKey
from logicmem.routes.visible.schedule import DAY_KIND
from logicmem.routes.visible.text import tokens

KB_KINDS = ("kb", "nearest")  # keys that are a knowledge entry's situations


def key_score(
    similarity: np.ndarray | float, specificity: np.ndarray | float, discount: float
) -> np.ndarray:
    """A key's similarity to the request, discounted as far as the key is shared: "wedding"
    is a situation of dozens of knowledge entries and fits any of them no better than the
    request fits a wedding; "destination wedding" is evidence for few. (An IDF for keys;
    ``discount`` is what a key every entry names loses, a parameter of the relevance model.)"""
    return np.asarray(similarity) * (1.0 - discount * (1.0 - np.asarray(specificity)))


@dataclass
class KeyMatch:
    """Per memory of the index (aligned with ``KeyIndex.memory_ids``)."""

    key_score: np.ndarray  # the best discounted similarity of any of its keys
    scored_row: np.ndarray  # ... the row of that key
    key_sim: np.ndarray  # the best raw similarity
    sim_row: np.ndarray  # ... its row
    lexical_weight: np.ndarray  # specificity of the most specific key named or implied
    lexical_row: np.ndarray  # ... its row, -1 where none is named or implied
    lexical_specificity: np.ndarray  # that key's own specificity (0 where none)
    implied_by: dict[int, str]  # memory position -> why its lexical key is implied

    @classmethod
    def empty(cls, n: int) -> KeyMatch:
        """No key matched for any of ``n`` memories."""
        zeros, none = np.zeros(n, dtype=np.float32), np.full(n, -1, dtype=np.int64)
        return cls(zeros, none, zeros, none, zeros, none, zeros, {})

    def aligned(self, to: np.ndarray, n: int) -> KeyMatch:
        """The match re-indexed onto ``n`` other positions: memory m of the index becomes
        position ``to[m]`` (-1: dropped); positions no memory maps to match nothing."""
        out = KeyMatch.empty(n)
        keep = to >= 0
        for f in fields(self):
            if f.name != "implied_by":
                target = getattr(out, f.name).copy()
                target[to[keep]] = getattr(self, f.name)[keep]
                setattr(out, f.name, target)
        out.implied_by = {int(to[m]): why for m, why in self.implied_by.items() if to[m] >= 0}
        return out


class KeyIndex:
    def __init__(self, keys: list[MemoryKey], matrix: np.ndarray, kb: KnowledgeBase) -> None:
        order = sorted(range(len(keys)), key=lambda i: keys[i].memory_id)
        self.rows = [keys[i] for i in order]
        # A duty's day ("saturday") is a key apart from a situation of the same words: it
        # has no vector to be matched by similarity (``hook``).
        distinct: dict[tuple[str, bool], int] = {}
        first_row: list[int] = []
        row_key = np.empty(len(order), dtype=np.int64)
        for r, i in enumerate(order):
            text = (keys[i].key, keys[i].kind == DAY_KIND)
            if text not in distinct:
                distinct[text] = len(distinct)
                first_row.append(i)
            row_key[r] = distinct[text]
        self.texts = [text for text, _ in distinct]
        self.day_key = np.array([day for _, day in distinct], dtype=bool)
        self.vectors = (
            np.ascontiguousarray(matrix[first_row], dtype=np.float32)
            if first_row
            else np.zeros((0, matrix.shape[1] if matrix.ndim == 2 else 0), dtype=np.float32)
        )
        self.row_key = row_key
        self.row_specificity = np.array(
            [kb.specificity(k.key) if k.kind in KB_KINDS else 1.0 for k in self.rows],
            dtype=np.float32,
        )
        self.memory_ids: list[str] = []
        starts: list[int] = []
        for r, key in enumerate(self.rows):
            if not self.memory_ids or self.memory_ids[-1] != key.memory_id:
                self.memory_ids.append(key.memory_id)
                starts.append(r)
        self.starts = np.array(starts, dtype=np.int64)
        self.counts = np.diff(np.r_[self.starts, len(self.rows)]).astype(np.int64)
        self.row_memory = np.repeat(np.arange(len(self.memory_ids)), self.counts)
        self.key_tokens = [tokens(t) for t in self.texts]
        self.by_first: dict[str, list[int]] = {}
        self.by_tokens: dict[tuple[str, ...], list[int]] = {}
        for u, toks in enumerate(self.key_tokens):
            if toks:
                self.by_first.setdefault(toks[0], []).append(u)
                self.by_tokens.setdefault(toks, []).append(u)

    def __len__(self) -> int:
        return len(self.rows)

    def named(self, words: tuple[str, ...]) -> np.ndarray:
        """Distinct keys whose tokens occur contiguously in ``words`` (a boolean mask)."""
        mask = np.zeros(len(self.texts), dtype=bool)
        for i, word in enumerate(words):
            for u in self.by_first.get(word, ()):
                toks = self.key_tokens[u]
                if words[i : i + len(toks)] == toks:
                    mask[u] = True
        return mask

    def implied(
        self, phrases: dict[tuple[str, ...], str], dated: dict[tuple[str, ...], str] | None = None
    ) -> dict[int, str]:
        """Distinct keys the request implies (``expand.expansions``), with the reason; the
        ``dated`` days (``expand.dated_days``) imply a duty's days only."""
        out: dict[int, str] = {}
        for toks, why in phrases.items():
            for u in self.by_tokens.get(toks, ()):
                out.setdefault(u, why)
        for toks, why in (dated or {}).items():
            for u in self.by_tokens.get(toks, ()):
                if self.day_key[u]:
                    out.setdefault(u, why)
        return out

    def match(
        self,
        windows: np.ndarray,
        words: tuple[str, ...],
        phrases: dict[tuple[str, ...], str],
        *,
        discount: float,
        implied_weight: float,
        dated: dict[tuple[str, ...], str] | None = None,
    ) -> KeyMatch:
        """Score every memory's keys against a request given as its window vectors (the
        whole request first), its tokens and the phrases and ``dated`` days it implies
        (see ``implied``); ``discount`` as in
        ``key_score``, ``implied_weight``: what an implied key counts for against a named
        one (both parameters of the relevance model)."""
        if not len(self.rows):
            return KeyMatch.empty(len(self.memory_ids))
        sims_u = (windows @ self.vectors.T).max(axis=0)
        sim = sims_u[self.row_key]
        score = key_score(sim, self.row_specificity, discount).astype(np.float32)
        best_score, scored_row = self._segment_max(score)
        best_sim, sim_row = self._segment_max(sim)
        named = self.named(words)
        implied = self.implied(phrases, dated)
        implied_mask = np.zeros(len(self.texts), dtype=bool)
        implied_mask[list(implied)] = True
        named_row = named[self.row_key]
        implied_row = implied_mask[self.row_key] & ~named_row
        # A named key counts as far as it is specific ("lilies" names one constraint,
        # "restaurant" dozens); whether it also fits the request in context ("we leave
        # Friday" names 'leave', military leave, in another sense) is the similarity's part.
        weight = np.where(implied_row, self.row_specificity * implied_weight, self.row_specificity)
        lexical = np.where(named_row | implied_row, weight + 1e-6, 0.0).astype(np.float32)
        best_lex, lex_row = self._segment_max(lexical)
        lex_row = np.where(best_lex > 0, lex_row, -1)
        best_lex = np.maximum(best_lex - 1e-6, 0.0)
        why = {}
        for m in np.flatnonzero(lex_row >= 0):
            u = int(self.row_key[lex_row[m]])
            if u in implied and not named[u]:
                why[int(m)] = implied[u]
        lex_spec = np.where(lex_row >= 0, self.row_specificity[np.maximum(lex_row, 0)], 0.0)
        return KeyMatch(best_score, scored_row, best_sim, sim_row, best_lex, lex_row, lex_spec, why)

    def _segment_max(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per memory: the largest value among its rows, and the first row holding it."""
        best = np.maximum.reduceat(values, self.starts)
        hit = np.flatnonzero(values >= np.repeat(best, self.counts))
        _, first = np.unique(self.row_memory[hit], return_index=True)
        return best, hit[first]
