"""Does a question ask for the user's record, or for advice? A learned reading beside the
rules of ``route.asks_for_record``.

A question for the record ("What are the ages of my nieces?", "Who drove me to the
airport in March?") asks for evidence that the semantic route finds; a request for advice
("What should I cook for my in-laws?") is where a standing constraint decides the answer.
The rules read a question by its grammar: an auxiliary of the past before the speaker, a
question word before "my" and a verb of being, and so on. Phrasings they do not list
("What are the ages of ...", "Who looks after ... when ...", a question typed loosely) were
read as requests for advice, and the constraints the route then put in view took slots
from the evidence.

``RecordIntent`` is a logistic regression over the embedding of the question's own
sentence (``route.asked_sentence``), fit on balanced classes of authored examples
(``data/intent_examples.json``: questions for the record and requests for advice, written
from general knowledge for this model, with near pairs that share a topic and differ in
intent). It is built once per process for an embedder, as the criticality classifier is
(the examples' vectors are cached per machine). The route reads a question as one for the
record when the rules do, or when this model's probability reaches
``VisibilitySettings.record_intent``; the model judges only a question about the speaker
with no modal of advice (``route.open_to_intent``). ``L2`` and the threshold were chosen
together by 5-fold cross-validation on the examples alone (docs/benchmarks.md).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from importlib import resources

import numpy as np

from logicmem.models.embed.base import Embedder
from logicmem.routes.visible.criticality import Classifier, VectorCache, train_classifier
from logicmem.store.base import Store

EXAMPLES = "intent_examples.json"
L2 = 0.3  # ridge penalty (on the weighted mean loss), chosen with ``record_intent`` by CV


def intent_examples() -> tuple[list[str], list[str]]:
    """(record, advice) example requests."""
    path = resources.files("logicmem.data").joinpath(EXAMPLES)
    data = json.loads(path.read_text())
    return list(dict.fromkeys(data["record"])), list(dict.fromkeys(data["advice"]))


@dataclass(frozen=True)
class RecordIntent:
    classifier: Classifier

    def probability(self, vectors: np.ndarray) -> np.ndarray:
        """p(the request asks for the record), one per row of ``vectors``."""
        return self.classifier.proba(np.atleast_2d(vectors))


def fit_intent(record: np.ndarray, advice: np.ndarray, l2: float = L2) -> RecordIntent:
    x = np.vstack([record, advice])
    y = np.r_[np.ones(len(record)), np.zeros(len(advice))]
    return RecordIntent(train_classifier(x, y, l2=l2))


_BUILT: dict[str, RecordIntent] = {}
_LOCK = threading.Lock()


def record_intent(store: Store, embedder: Embedder) -> RecordIntent:
    """The model for this embedder, fit on first use in the process (well under a second
    once the examples' vectors are cached)."""
    with _LOCK:
        model = _BUILT.get(embedder.name)
        if model is None:
            record, advice = intent_examples()
            vectors = VectorCache(store, embedder).shared_vectors(record + advice)
            model = _BUILT[embedder.name] = fit_intent(
                vectors[: len(record)], vectors[len(record) :]
            )
        return model
