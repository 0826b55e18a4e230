"""Reliability: what a user can check that logicmem keeps its promises about their data.

Five checks, each run through the real CLI or library on the embedded defaults (MiniLM,
no LLM), writing ``docs/reliability.md`` with the figures and this command:

- **kill -9**: ``logicmem ingest`` of a LoCoMo conversation is killed at 10 seeded random
  moments, then re-run; each store must end with the memories of a clean ingest (the same
  count and the same texts).
- **concurrent writers**: 8 processes add 500 distinct facts each to one store; every turn
  and every fact must be there, with no error.
- **forget**: a user with memories, derived keys and their vectors, a profile, RuleMem
  facts and rules and root units is forgotten; the distinctive words of what they said
  are counted in the store file and its ``-wal`` afterwards (target 0).
- **injection**: the hostile memory texts of ``benchmarks/data/hostile_memories.jsonl``
  are stored verbatim and rendered into the answer prompt's context; each must be one
  data line, and no text may end the data block.
- **bad inputs**: each bad input the CLI must refuse, with its exit code and message.

LoCoMo is read from ``../shared/data/locomo10`` (research data, never copied here). Run:

    .venv/bin/python benchmarks/reliability.py [--kills 10] [--writers 8] [--facts 500]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LOCOMO = ROOT.parent / "shared" / "data" / "locomo10"
CLI = [sys.executable, "-m", "logicmem.cli.main"]
USER = "Caroline"  # LoCoMo conversation 26's first speaker: the user whose memory it is
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LOGICMEM_LLM": "none"}


def _texts(db: Path, user: str) -> list[str]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT text FROM memories WHERE user_id = ? AND status = 'active'", (user,)
        ).fetchall()
    return sorted(r[0] for r in rows)


def _counts(db: Path) -> tuple[int, int]:
    """(turns, pending turns) in a store, read without opening it through logicmem."""
    if not db.exists():
        return 0, 0
    with sqlite3.connect(db) as conn:
        try:
            row = conn.execute("SELECT COUNT(*), COALESCE(SUM(pending), 0) FROM turns").fetchone()
        except sqlite3.OperationalError:
            return 0, 0
    return int(row[0]), int(row[1])


def _ingest(db: Path, conversation: Path) -> list[str]:
    return [
        *CLI,
        "ingest",
        "--format",
        "locomo",
        str(conversation),
        "--user",
        USER,
        "--store",
        str(db),
    ]


def kill_and_resume(work: Path, conversation: Path, kills: int, seed: int) -> dict[str, Any]:
    clean = work / "clean.db"
    started = time.perf_counter()
    subprocess.run(_ingest(clean, conversation), env=ENV, check=True, capture_output=True)
    clean_s = time.perf_counter() - started
    expected = _texts(clean, USER)
    rng = random.Random(seed)
    runs = []
    for n in range(kills):
        db = work / f"killed-{n}.db"
        at = rng.uniform(0.05, 0.95) * clean_s
        proc = subprocess.Popen(
            _ingest(db, conversation), env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            proc.wait(timeout=at)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        turns, pending = _counts(db)
        subprocess.run(_ingest(db, conversation), env=ENV, check=True, capture_output=True)
        got = _texts(db, USER)
        runs.append(
            {
                "killed_at_s": round(at, 1),
                "turns_at_kill": turns,
                "pending_at_kill": pending,
                "memories": len(got),
                "equal": got == expected,
            }
        )
        print(f"kill {n + 1}/{kills} at {at:.1f}s: {runs[-1]}", file=sys.stderr)
    return {
        "conversation": conversation.name,
        "clean_seconds": round(clean_s, 1),
        "clean_memories": len(expected),
        "runs": runs,
        "equal": sum(r["equal"] for r in runs),
    }


def _writer(args: tuple[str, int, int]) -> tuple[int, str]:
    path, writer, facts = args
    from logicmem import Memory

    errors = 0
    last = ""
    with Memory(path) as mem:
        for i in range(facts):
            try:
                mem.add(
                    f"I noted fact number {i} from writer {writer} today.",
                    user_id="shared",
                    session_id=f"w{writer}",
                )
            except Exception as exc:  # counted and reported: the check is "0 errors"
                errors += 1
                last = f"{type(exc).__name__}: {exc}"
    return errors, last


def concurrent_writers(work: Path, writers: int, facts: int) -> dict[str, Any]:
    db = work / "writers.db"
    from logicmem import Memory

    Memory(db).close()  # created (and migrated) once, before the writers race
    started = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(writers) as pool:
        results = pool.map(_writer, [(str(db), w, facts) for w in range(writers)])
    seconds = time.perf_counter() - started
    texts = "\n".join(_texts(db, "shared"))
    missing = [
        (w, i)
        for w in range(writers)
        for i in range(facts)
        if f"fact number {i} from writer {w} " not in texts
    ]
    turns, pending = _counts(db)
    return {
        "writers": writers,
        "facts_each": facts,
        "seconds": round(seconds, 1),
        "turns": turns,
        "pending": pending,
        "memories": len(_texts(db, "shared")),
        "missing_facts": len(missing),
        "errors": sum(e for e, _ in results),
        "last_error": next((m for _, m in results if m), ""),
    }


DISTINCT = ["Quorvelline", "Brastomere", "Tindlewick", "Osperanth", "Vexmorrow"]


def forget_leaves_nothing(work: Path) -> dict[str, Any]:
    import numpy as np

    from logicmem import Memory
    from logicmem.routes.rootmem.repo import RootMemRepository, RootUnit, UnitEvidence
    from logicmem.routes.rulemem.repo import RuleMemRepository
    from logicmem.routes.visible.repo import VisibleRepository
    from logicmem.types import Scope

    db = work / "forget.db"
    mem = Memory(db, config={"llm": {"provider": "none"}})
    statements = [
        f"I am allergic to {DISTINCT[0]} pollen and carry an inhaler.",
        f"My cat {DISTINCT[1]} sleeps on the piano.",
        f"I walk to the {DISTINCT[2]} bakery every morning.",
        f"My sister lives on {DISTINCT[3]} Street and visits on Sundays.",
        f"I have been vegetarian since I read about {DISTINCT[4]} farms.",
    ]
    for n, text in enumerate(statements):
        mem.add(text, user_id="fay", session_id=f"s{n}", timestamp=f"2024-0{n + 1}-02")
    mem.add("I keep bees in the garden.", user_id="gus")
    mem.consolidate(user_id="fay")  # profile, RuleMem facts and rules (RootMem needs an LLM)
    memories = mem.get_all(user_id="fay")
    # Root units are built by an LLM; none runs offline, so one is written as a builder
    # would (activation, guidance, evidence quoting the memories), and so are derived
    # texts' vectors (what the LLM anticipation path caches).
    unit = RootUnit(
        unit_id="u-fay",
        user_id="fay",
        activation=f"planning meals or outings with {DISTINCT[1]} at home",
        guidance=f"avoid {DISTINCT[0]} pollen; suggest vegetarian dishes",
        evidence=[UnitEvidence(m.id, m.text) for m in memories],
    )
    visible = VisibleRepository.of(mem.store)
    rules = RuleMemRepository.of(mem.store)
    RootMemRepository.of(mem.store).add_units([unit])
    derived = [f"When gardening near {DISTINCT[0]} plants: mind the allergy"]
    visible.cache_vectors("fay", derived, mem.embedder.embed(derived))
    mem.store.vectors(Scope("fay"))
    profile = visible.load_profile("fay")
    objects = {
        "memories": len(memories),
        "profile_lines": len(profile.lines) if profile else 0,
        "rulemem_facts": len(rules.quads(Scope("fay"))[0]),
        "rulemem_rules": len(rules.rules(Scope("fay"))[0]),
        "root_units": len(RootMemRepository.of(mem.store).units(Scope("fay"))),
        "keys": len(visible.memory_keys(Scope("fay"))[0]),
    }
    before = _word_bytes(db)
    mem.delete_user("fay")
    after = _word_bytes(db)
    kept = _texts(db, "gus")
    mem.close()
    del np
    return {"objects": objects, "before": before, "after": after, "other_user_kept": len(kept)}


def _word_bytes(db: Path) -> dict[str, int]:
    found = {}
    for word in DISTINCT:
        total = 0
        for suffix in ("", "-wal"):
            f = Path(str(db) + suffix)
            if f.exists():
                data = f.read_bytes()
                total += data.count(word.encode()) + data.lower().count(word.lower().encode())
        found[word] = total
    return found


def injection(work: Path) -> dict[str, Any]:
    from logicmem import Memory
    from logicmem.prompting import check_block

    rows = [json.loads(line) for line in (HERE / "data" / "hostile_memories.jsonl").open()]
    mem = Memory(work / "inject.db", config={"llm": {"provider": "none"}})
    failures = []
    for n, row in enumerate(rows):
        user = f"victim-{n}"
        mem.add(row["text"], user_id=user, infer=False)
        rendered = mem.context(row["text"][:200] or "hello", user_id=user, k=5).render()
        problems = check_block(rendered)
        data_lines = [line for line in rendered.splitlines() if line.startswith("{")]
        if problems or len(data_lines) != 1:
            failures.append({"attack": row.get("attack"), "problems": problems})
    mem.close()
    return {"texts": len(rows), "one_line_each": len(rows) - len(failures), "failures": failures}


def bad_inputs(work: Path) -> list[dict[str, Any]]:
    db = work / "bad.db"
    fast = ENV
    subprocess.run(
        [*CLI, "add", "I have a cat.", "--user", "a", "--store", str(db)],
        env=fast,
        check=True,
        capture_output=True,
    )
    locked = work / "locked"
    locked.write_text("a file, not a folder")
    cases: list[tuple[str, list[str], dict[str, str], str | None]] = [
        ("--time notadate", ["add", "hi there all", "--user", "a", "--time", "notadate"], {}, None),
        ("a message over the size limit", ["add", "x" * 40_000, "--user", "a"], {}, None),
        ("export --out under a file",
         ["export", "--user", "a", "--out", f"{locked}/x.jsonl"], {}, None),
        ("LOGICMEM_LLM=bogus", ["stats"], {"LOGICMEM_LLM": "bogus"}, None),
        ("forget without --yes, no terminal", ["forget", "--user", "a"], {}, ""),
        ("add - with empty stdin", ["add", "-", "--user", "a"], {}, ""),
        ("history of another user's id", ["history", "nope", "--user", "b"], {}, None),
        ("search --as-of notadate",
         ["search", "cat", "--user", "a", "--as-of", "notadate"], {}, None),
        ("a store path under a file", ["stats", "--store", f"{locked}/s.db"], {}, None),
    ]  # fmt: skip
    out = []
    for label, args, extra, stdin in cases:
        if "--store" not in args:
            args = [*args, "--store", str(db)]
        proc = subprocess.run(
            [*CLI, *args],
            env={**fast, **extra},
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
        )
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        out.append(
            {
                "input": label,
                "exit": proc.returncode,
                "lines": len(lines),
                # The throwaway folder is named, not its path on this machine.
                "message": lines[-1].replace(str(work), "$WORK")[:160] if lines else "",
                "traceback": "Traceback" in proc.stderr,
            }
        )
    return out


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


def _report(results: dict[str, Any], command: str) -> str:
    lines = [
        "# Reliability",
        "",
        f"Generated by `benchmarks/reliability.py` at commit {_commit()}, on the embedded",
        "defaults (MiniLM, no LLM); rerun it to check these figures on your machine:",
        "",
        f"    {command}",
        "",
    ]
    k = results.get("kill")
    if k:
        lines += [
            "## kill -9 of `ingest`, then a re-run",
            "",
            f"LoCoMo conversation {k['conversation']}; a clean ingest took {k['clean_seconds']} s "
            f"and stored {k['clean_memories']} memories. Equal to the clean ingest (count and "
            f"texts) after the re-run: **{k['equal']} / {len(k['runs'])}**.",
            "",
            "| kill at (s) | turns stored at the kill | of them pending | memories after re-run "
            "| equal |",
            "|---|---|---|---|---|",
        ]
        for r in k["runs"]:
            lines.append(
                f"| {r['killed_at_s']} | {r['turns_at_kill']} | {r['pending_at_kill']} | "
                f"{r['memories']} | {'yes' if r['equal'] else 'NO'} |"
            )
        lines.append("")
    w = results.get("writers")
    if w:
        lines += [
            "## Concurrent writers on one store",
            "",
            f"{w['writers']} processes x {w['facts_each']} distinct facts, {w['seconds']} s: "
            f"{w['turns']} turns ({w['pending']} pending), {w['memories']} memories, "
            f"**{w['missing_facts']} facts missing, {w['errors']} errors**"
            + (f" (last: {w['last_error']})" if w["last_error"] else "")
            + ".",
            "",
        ]
    f = results.get("forget")
    if f:
        lines += [
            "## Forget",
            "",
            "The user had: "
            + ", ".join(f"{v} {name.replace('_', ' ')}" for name, v in f["objects"].items())
            + ". Occurrences of their distinctive words in the store file and its `-wal`:",
            "",
            "| word | before forget | after forget |",
            "|---|---|---|",
        ]
        for word in DISTINCT:
            lines.append(f"| {word} | {f['before'][word]} | **{f['after'][word]}** |")
        lines += ["", f"The other user's memories kept: {f['other_user_kept']}.", ""]
    i = results.get("injection")
    if i:
        lines += [
            "## Stored text as data",
            "",
            f"{i['texts']} hostile memory texts stored verbatim: **{i['one_line_each']} / "
            f"{i['texts']}** render as exactly one data line inside an intact data block.",
            "",
        ]
        for fail in i["failures"]:
            lines.append(f"- failed: {fail['attack']}: {fail['problems']}")
    b = results.get("bad")
    if b:
        lines += [
            "## Bad inputs",
            "",
            "| input | exit code | lines on stderr | traceback | message |",
            "|---|---|---|---|---|",
        ]
        for r in b:
            message = r["message"].replace("|", "\\|")
            lines.append(
                f"| {r['input']} | {r['exit']} | {r['lines']} | {'yes' if r['traceback'] else 'no'}"
                f" | {message} |"
            )
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--facts", type=int, default=500)
    parser.add_argument("--conversation", default="26")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--only", nargs="*", choices=["kill", "writers", "forget", "injection", "bad"]
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "reliability.md")
    args = parser.parse_args(argv)
    only = set(args.only or ["kill", "writers", "forget", "injection", "bad"])
    conversation = LOCOMO / f"{args.conversation}.json"
    if "kill" in only and not conversation.exists():
        print(f"error: {conversation} not found (LoCoMo beside the checkout)", file=sys.stderr)
        return 2
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="logicmem-reliability-") as tmp:
        work = Path(tmp)
        if "bad" in only:
            results["bad"] = bad_inputs(work)
        if "injection" in only:
            results["injection"] = injection(work)
        if "forget" in only:
            results["forget"] = forget_leaves_nothing(work)
        if "writers" in only:
            results["writers"] = concurrent_writers(work, args.writers, args.facts)
        if "kill" in only:
            results["kill"] = kill_and_resume(work, conversation, args.kills, args.seed)
    command = ".venv/bin/python benchmarks/reliability.py " + " ".join(argv or sys.argv[1:])
    report = _report(results, command.strip())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report + "\n")
    (args.out.with_suffix(".json")).write_text(json.dumps(results, indent=1) + "\n")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
