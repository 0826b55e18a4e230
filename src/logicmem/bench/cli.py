"""``logicmem bench {recall,inmind,imlogic,locomo}``: argparse wiring and handlers.

``add_parser(subparsers)`` registers ``bench`` on the main CLI; each handler takes the
parsed args and returns an exit code (bad input raises ``InputError``, exit 2 upstream).
``python -m logicmem.bench`` runs the same parser standalone.

inmind and imlogic also take ``--distractor-age older|random`` (are the ``--distractors``
always older than the task's own facts, or each older or newer by a seeded coin; default
random) and ``--half A|B`` (one dev half, by a hash of each item's id; see
``data.half_of``). Optional dependencies are checked before any work: plots need
matplotlib (``pip install 'logicmem[bench]'``) unless ``--no-plots``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from logicmem.bench import answer as ans
from logicmem.bench import results as res
from logicmem.bench.adapters import imlogic, inmind, locomo, recall
from logicmem.bench.adapters.common import AGES, InjectionOptions
from logicmem.bench.cache import CachingEmbedder, default_cache_dir
from logicmem.bench.data import HALVES, load_backgrounds
from logicmem.bench.engine import (
    USER_IDS,
    Engine,
    consolidation_summary,
    store_summary,
    usage_summary,
)
from logicmem.bench.methods import available, resolve
from logicmem.cli.output import writable_dir
from logicmem.config import Settings, load_settings
from logicmem.errors import InputError
from logicmem.models.embed.base import Embedder
from logicmem.models.factory import build_embedder
from logicmem.models.llm.base import LLM
from logicmem.store.url import parse_store_url

Handler = Callable[[argparse.Namespace], int]
DEFAULT_METHODS = "bm25,dense,hybrid"


def parse_ks(text: str) -> list[int]:
    try:
        ks = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise InputError(f"--k takes comma-separated integers like 10,30, not {text!r}") from None
    if not ks or ks[0] < 1:
        raise InputError(f"--k needs integers of at least 1, got {text!r}")
    return ks


def _common(p: argparse.ArgumentParser, default_k: str) -> None:
    p.add_argument(
        "--methods",
        default=DEFAULT_METHODS,
        help=f"comma-separated, from: {', '.join(available())}",
    )
    p.add_argument("--k", default=default_k, help=f"context budgets (default {default_k})")
    p.add_argument("--out", required=True, type=Path, help="output directory")
    p.add_argument("--seed", type=int, default=0, help="seed for distractors and shuffling")
    p.add_argument("--limit", type=int, help="only the first N tasks/items/questions")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    p.add_argument("--config", help="TOML settings file (default: $LOGICMEM_CONFIG)")
    p.add_argument(
        "--cache", type=Path, help="embedding cache dir (default: ~/.cache/logicmem/bench)"
    )
    p.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    p.add_argument(
        "--no-plots",
        action="store_true",
        help="skip the PNG plots (they need matplotlib: pip install 'logicmem[bench]')",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument(
        "--store",
        help="where to build the bench's throwaway stores: postgresql://... (a schema each, "
        "dropped after use) or sqlite (files in a temporary folder; the default). The bench "
        "never reads $LOGICMEM_STORE: it must not write into a user's store",
    )
    p.add_argument("--label", help="a name for this run in docs/benchmarks.md")
    p.add_argument(
        "--user-ids",
        choices=USER_IDS,
        default="name",
        help="name: the store's user id is the user's name, as the turns give it; opaque: "
        "an account-style id ('user-' and 8 hex digits of the name) while the turns keep "
        "the name, as in a deployment whose user ids are not names (default name)",
    )


def _injected(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(f"--{what}", required=True, type=Path, help="JSONL file")
    p.add_argument("--background", required=True, type=Path, help="LoCoMo conversations dir")
    p.add_argument("--level", choices=["memory", "conversation"], default="memory")
    p.add_argument("--conversations", help="only these conversation files, e.g. 26,30")
    p.add_argument(
        "--inject-per-run",
        type=int,
        default=1,
        help="conversation level: tasks injected into one run, in sessions around the middle",
    )
    p.add_argument(
        "--distractors",
        type=int,
        default=0,
        help="add the facts of N other tasks as the same user's",
    )
    p.add_argument(
        "--distractor-age",
        choices=AGES,
        default="random",
        help="older: every distractor is older than the task's facts (inserted or said "
        "before them); random: each is older or newer by a coin fixed by --seed, and none "
        "fills a single-valued slot (residence, employer...) the task's facts fill "
        "(default random)",
    )
    p.add_argument(
        "--half",
        choices=HALVES,
        help="only one dev half: the items whose sha256('logicmem-half:ID') is even (A) or "
        "odd (B), whatever the file order and --seed; applied before --limit",
    )


def _judge(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judge", metavar="MODEL", help="OpenAI-compatible judge model")
    p.add_argument("--judge-base-url", help="judge server (default: LOGICMEM_JUDGE_BASE_URL)")


def add_parser(subparsers: Any) -> None:
    """Register ``bench`` and its sub-commands on the main CLI's subparsers."""
    bench = subparsers.add_parser(
        "bench",
        help="evaluation harness (recall, InMind, IMLogic, LoCoMo)",
        description="logicmem evaluation harness",
    )
    sub = bench.add_subparsers(dest="bench_command", required=True, metavar="BENCHMARK")

    p = sub.add_parser("recall", help="generic recall: history + questions [+ memories]")
    p.add_argument("--history", required=True, type=Path)
    p.add_argument("--questions", required=True, type=Path)
    p.add_argument("--memories", type=Path, help="memory level: given memory entries")
    _common(p, "10,30")
    p.set_defaults(handler=run_recall)

    p = sub.add_parser("inmind", help="InMind-style injected facts, naive and indirect queries")
    _injected(p, "tasks")
    p.add_argument("--answer", action="store_true", help="answer with the configured LLM")
    _judge(p)
    _common(p, "30")
    p.set_defaults(handler=run_inmind)

    p = sub.add_parser("imlogic", help="IMLogic-style semantic vs logical memories, MCQ")
    _injected(p, "items")
    p.add_argument("--mcq", action="store_true", help="answer the MCQ with the configured LLM")
    _common(p, "30")
    p.set_defaults(handler=run_imlogic)

    p = sub.add_parser("locomo", help="LoCoMo evidence recall [and QA]")
    p.add_argument("--data", required=True, type=Path, help="LoCoMo conversations dir")
    p.add_argument("--level", choices=["memory", "conversation"], default="memory")
    p.add_argument("--conversations", help="only these conversation files, e.g. 26,30")
    p.add_argument("--qa", action="store_true", help="answer the questions with the LLM")
    p.add_argument("--include-adversarial", action="store_true", help="keep category 5")
    _judge(p)
    _common(p, "10,30")
    p.set_defaults(handler=run_locomo)


# -- shared setup -------------------------------------------------------------------------
class Setup:
    """Settings, the cached embedder, methods and budgets for one run."""

    def __init__(self, args: argparse.Namespace, embedder: Embedder | None = None) -> None:
        check_optional(args)
        writable_dir(args.out)  # a bad --out fails now, not after the run
        self.args = args
        self.settings: Settings = load_settings(config_file=args.config)
        self.methods = resolve(args.methods.split(","))
        self.ks = parse_ks(args.k)
        if args.limit is not None and args.limit < 1:
            raise InputError(f"--limit must be at least 1, got {args.limit}")
        inner = embedder or build_embedder(self.settings.embedder)
        path = None if args.no_cache else (args.cache or default_cache_dir()) / "embeddings.db"
        self.embedder = CachingEmbedder(inner, path)
        self.start = time.perf_counter()
        store = getattr(args, "store", None)
        self.store = None if store in (None, "sqlite") else store
        if self.store is not None:
            parse_store_url(self.store)  # a bad URL fails now, not after the run

    def engine(self, llm: LLM | None = None) -> Engine:
        return Engine(
            self.settings,
            self.embedder,
            self.methods,
            self.ks,
            llm=llm,
            progress=not self.args.quiet,
            store=self.store,
            user_ids=self.args.user_ids,
        )

    def options(self, **extra: Any) -> dict[str, Any]:
        return {
            "methods": [m.name for m in self.methods],
            "ks": self.ks,
            "limit": self.args.limit,
            "user_ids": self.args.user_ids,
            **extra,
        }

    def finish(
        self,
        benchmark: str,
        level: str,
        outcome: res.Outcome,
        engine: Engine,
        options: dict[str, Any],
        llm: LLM | None = None,
    ) -> int:
        """Assemble results.json, write the outputs, print the summary."""
        partial = outcome.results
        doc = res.document(
            benchmark=benchmark,
            level=level,
            ks=self.ks,
            seed=self.args.seed,
            config=res.bench_config(self.settings, options),
            versions=res.versions(self.embedder.name, llm.name if llm else None),
            data=partial.pop("data"),
            methods=partial.pop("methods"),
            **partial,
        )
        doc["stores"] = store_summary(engine.store_stats)
        if engine.consolidation:
            doc["consolidation"] = consolidation_summary(engine.consolidation)
        if engine.llm_usage:
            doc["llm_usage"] = usage_summary(engine.llm_usage)
        doc["main_metrics"] = outcome.main_metrics
        doc["command"] = res.command_line(getattr(self.args, "argv", None) or _argv_for_record())
        if self.args.label:
            doc["label"] = self.args.label
        doc["elapsed_s"] = round(time.perf_counter() - self.start, 1)
        outcome.results = doc
        paths = res.write(self.args.out, outcome, plots=not self.args.no_plots)
        self.embedder.close()
        if self.args.json:
            print(json.dumps(res.summary(doc), indent=2))
        else:
            print(f"wrote {', '.join(str(p) for p in paths)}", file=sys.stderr)
        return 0


def check_optional(args: argparse.Namespace) -> None:
    """Fail before any work when an optional module the run ends with is missing.

    Plots are drawn after the last probe, so a missing matplotlib would otherwise surface
    only when the whole run is done. (``--judge`` needs the openai client, a core
    dependency, and is built before any work.)
    """
    if not args.no_plots and importlib.util.find_spec("matplotlib") is None:
        raise InputError(
            "plots need matplotlib, which is not installed: pip install 'logicmem[bench]', "
            "or pass --no-plots"
        )


def _argv_for_record() -> list[str]:
    """argv as ``logicmem bench ...``, whether run from the main CLI or ``-m logicmem.bench``."""
    argv = sys.argv[1:]
    return argv if argv[:1] == ["bench"] else ["bench", *argv]


def _conversations(text: str | None) -> list[str] | None:
    return [s for s in text.split(",") if s.strip()] if text else None


def _judge_llm(args: argparse.Namespace, settings: Settings, answering: bool) -> LLM | None:
    if args.judge and not answering:
        raise InputError("--judge grades answers: add --answer (inmind) or --qa (locomo)")
    return ans.build_judge(args.judge, args.judge_base_url, settings) if args.judge else None


def _check_injection(args: argparse.Namespace) -> None:
    if args.inject_per_run < 1:
        raise InputError(f"--inject-per-run must be at least 1, got {args.inject_per_run}")
    if args.distractors < 0:
        raise InputError(f"--distractors cannot be negative, got {args.distractors}")


def _injection_options(args: argparse.Namespace) -> InjectionOptions:
    return InjectionOptions(
        args.level,
        args.seed,
        args.distractors,
        args.inject_per_run,
        args.limit,
        args.distractor_age,
        args.half,
    )


def _injection_record(args: argparse.Namespace) -> dict[str, Any]:
    """The injection options results.json keeps under config.bench."""
    return {
        "distractors": args.distractors,
        "distractor_age": args.distractor_age,
        "half": args.half,
        "inject_per_run": args.inject_per_run,
    }


# -- handlers -----------------------------------------------------------------------------
def run_recall(args: argparse.Namespace, embedder: Embedder | None = None) -> int:
    setup = Setup(args, embedder)
    level = "memory" if args.memories else "conversation"
    with setup.engine() as engine:
        outcome = recall.run(args.history, args.questions, args.memories, engine, args.limit)
        return setup.finish("recall", level, outcome, engine, setup.options())


def run_inmind(args: argparse.Namespace, embedder: Embedder | None = None) -> int:
    _check_injection(args)
    setup = Setup(args, embedder)
    convs = load_backgrounds(args.background, _conversations(args.conversations))
    opt = _injection_options(args)
    llm = ans.build_answerer(setup.settings) if args.answer else None
    judge = _judge_llm(args, setup.settings, args.answer)
    with setup.engine(llm) as engine:
        outcome = inmind.run(args.tasks, args.background, convs, engine, opt, llm=llm, judge=judge)
        options = setup.options(
            **_injection_record(args),
            conversations=[c.id for c in convs],
            answer=args.answer,
            judge=args.judge,
        )
        return setup.finish("inmind", args.level, outcome, engine, options, llm)


def run_imlogic(args: argparse.Namespace, embedder: Embedder | None = None) -> int:
    _check_injection(args)
    setup = Setup(args, embedder)
    convs = load_backgrounds(args.background, _conversations(args.conversations))
    opt = _injection_options(args)
    llm = ans.build_answerer(setup.settings) if args.mcq else None
    with setup.engine(llm) as engine:
        outcome = imlogic.run(args.items, args.background, convs, engine, opt, llm=llm)
        options = setup.options(
            **_injection_record(args),
            conversations=[c.id for c in convs],
            mcq=args.mcq,
        )
        return setup.finish("imlogic", args.level, outcome, engine, options, llm)


def run_locomo(args: argparse.Namespace, embedder: Embedder | None = None) -> int:
    setup = Setup(args, embedder)
    convs = load_backgrounds(args.data, _conversations(args.conversations))
    opt = locomo.Options(args.level, args.include_adversarial, args.limit)
    llm = ans.build_answerer(setup.settings) if args.qa else None
    judge = _judge_llm(args, setup.settings, args.qa)
    with setup.engine(llm) as engine:
        outcome = locomo.run(args.data, convs, engine, opt, llm=llm, judge=judge)
        options = setup.options(
            conversations=[c.id for c in convs],
            qa=args.qa,
            include_adversarial=args.include_adversarial,
            judge=args.judge,
        )
        return setup.finish("locomo", args.level, outcome, engine, options, llm)


def main(argv: list[str] | None = None) -> int:
    """Standalone entry (``python -m logicmem.bench``); errors exit 2 like the main CLI."""
    from logicmem.errors import LogicmemError

    parser = argparse.ArgumentParser(prog="python -m logicmem.bench")
    add_parser(parser.add_subparsers(dest="command", required=True))
    argv = ["bench", *(sys.argv[1:] if argv is None else argv)]
    args = parser.parse_args(argv)
    args.argv = argv
    try:
        return int(args.handler(args) or 0)
    except LogicmemError as exc:
        print(f"logicmem bench: error: {exc}", file=sys.stderr)
        return 2
