"""Drop authored criticality examples that come close to evaluation items.

The classifier's training examples (``src/logicmem/data/criticality_examples.json``,
``personal_logic_examples.json`` and ``conversation_examples.json``) and
its held-out check (``benchmarks/data/criticality_eval.jsonl``) are written from general
knowledge, but a sentence that paraphrases a development item would make the dev numbers
measure memorisation. Every example whose MiniLM cosine to any dev memory (IMLogic m_l and
m_s, InMind facts; the user renamed as in the examples) reaches ``--max-cos`` is removed.
Run once after editing the examples:

    .venv/bin/python scripts/decontaminate_examples.py --shared ../shared [--max-cos 0.7]
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from logicmem.config import load_settings
from logicmem.models.factory import build_embedder
from logicmem.routes.visible.criticality import EXAMPLE_FILES
from logicmem.routes.visible.text import PROTOTYPE_SUBJECT, neutral_subject, sentence_subject

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "logicmem" / "data"
EXAMPLES = [DATA / name for name in EXAMPLE_FILES]
EVAL = ROOT / "benchmarks" / "data" / "criticality_eval.jsonl"


def dev_memories(shared: Path) -> list[str]:
    out = []
    for name in ("imlogic_style_dev.jsonl", "inmind_style_dev.jsonl"):
        for line in (shared / "bench" / name).read_text().splitlines():
            if line.strip():
                item = json.loads(line)
                for key in ("logical_memory", "semantic_memory", "fact_memory"):
                    if item.get(key):
                        out.append(item[key].replace("{user}", PROTOTYPE_SUBJECT))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--max-cos", type=float, default=0.7)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    embedder = build_embedder(load_settings({"llm": {"provider": "none"}}).embedder)
    dev = embedder.embed(dev_memories(args.shared))

    def keep(texts: list[str]) -> list[bool]:
        if not texts:
            return []
        return [bool(s < args.max_cos) for s in (embedder.embed(texts) @ dev.T).max(axis=1)]

    removed = 0
    for path in EXAMPLES:
        examples = json.loads(path.read_text())
        for ctype, sentences in examples.get("critical", {}).items():
            flags = keep(sentences)
            examples["critical"][ctype] = [s for s, ok in zip(sentences, flags, strict=True) if ok]
            removed += flags.count(False)
        flags = keep(examples["ordinary"])
        examples["ordinary"] = [s for s, ok in zip(examples["ordinary"], flags, strict=True) if ok]
        removed += flags.count(False)
        # An entry's linked sentences are critical examples: those removed go from there too.
        stated = {s for sentences in examples.get("critical", {}).values() for s in sentences}
        links = examples.get("links", {})
        for entry_id, sentences in links.items():
            links[entry_id] = [s for s in sentences if s in stated]
        path.write_text(json.dumps(examples, indent=1, ensure_ascii=False) + "\n")
    rows = [json.loads(line) for line in EVAL.read_text().splitlines() if line.strip()]
    # Evaluation sentences name other people: compare them in the examples' subject.
    flags = keep([neutral_subject(r["text"], sentence_subject(r["text"])) for r in rows])
    kept = [r for r, ok in zip(rows, flags, strict=True) if ok]
    EVAL.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept))
    print(f"removed {removed} training examples and {flags.count(False)} evaluation sentences")


if __name__ == "__main__":
    main()
