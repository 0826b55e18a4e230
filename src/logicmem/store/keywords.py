"""The keyword index's tokenizer and BM25 scoring, with statistics per user.

Text is tokenized the way SQLite FTS5's ``porter unicode61`` tokenizer does it (letters
and digits, case and diacritics folded, then the Porter stemmer), so a memory's terms
and a query's terms meet on the same stems. Scores are Okapi BM25 with FTS5's
constants (``K1``, ``B``, ``idf``), summed by the store over one user's memories only:
what another user stores never changes this user's ranking.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache

import snowballstemmer

K1 = 1.2
B = 0.75
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_STEMMER = snowballstemmer.stemmer("porter")


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def tokens(text: str) -> list[str]:
    """Stemmed tokens of ``text`` in order ("Allergies, walnuts" -> ["allergi", "walnut"])."""
    return [_stem(w) for w in _TOKEN.findall(_fold(text))]


def term_counts(text: str) -> tuple[Counter[str], int]:
    """Each term's frequency in ``text`` and its length in tokens."""
    found = tokens(text)
    return Counter(found), len(found)


def query_stems(terms: Iterable[str]) -> list[str]:
    """The distinct stems of query terms (a term may hold several tokens: "mother-in-law")."""
    out: list[str] = []
    for term in terms:
        out.extend(tokens(term))
    return list(dict.fromkeys(out))


def idf(df: Mapping[str, int], docs: int) -> dict[str, float]:
    """Each term's inverse document frequency among ``docs`` documents (FTS5's form,
    floored at 1e-6 so a term in most documents still counts a little)."""
    return {term: max(math.log((docs - n + 0.5) / (n + 0.5)), 1e-6) for term, n in df.items()}
