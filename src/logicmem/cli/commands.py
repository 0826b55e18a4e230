"""Handlers for the memory commands. Each opens the store, does one thing, prints."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm

from logicmem.cli.output import context_lines, emit_json, hit_line, open_for_write
from logicmem.config import load_settings
from logicmem.errors import InputError, NotFoundError
from logicmem.io.formats import Session, read_sessions
from logicmem.memory import Memory
from logicmem.store.url import redact
from logicmem.write.messages import normalize_time, parse_messages


def open_memory(args: argparse.Namespace, overrides: dict[str, Any] | None = None) -> Memory:
    tree = dict(overrides or {})
    if getattr(args, "store", None):
        tree["store"] = args.store
    return Memory(config=load_settings(tree, config_file=getattr(args, "config", None)))


def _require_user(mem: Memory, user: str) -> None:
    if not mem.store.user_exists(user):
        known = mem.admin_users()
        hint = f"users in this store: {', '.join(known[:10])}" if known else "the store is empty"
        raise NotFoundError(
            f"no memories for user {user!r} in {redact(mem.settings.store)} ({hint}); "
            "add some with `logicmem ingest` or `logicmem add`"
        )


def _scope(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "user_id": args.user,
        "agent_id": getattr(args, "agent", None),
        "run_id": getattr(args, "run", None),
    }


def _check_sessions(mem: Memory, args: argparse.Namespace, sessions: list[Session]) -> None:
    """Refuse a file with any bad message (too long, unreadable time) before storing any."""
    for session in sessions:
        try:
            parse_messages(
                session.messages,
                user_id=args.user,
                session_id=session.session_id,
                timestamp=session.timestamp,
                max_chars=mem.settings.extract.max_message_chars,
            )
        except InputError as exc:
            raise InputError(
                f"{args.file}, session {session.session_id}: {exc} (nothing was ingested)"
            ) from None


def ingest(args: argparse.Namespace) -> int:
    sessions = read_sessions(args.file, args.fmt, args.user, args.conversation)
    totals = {"sessions": len(sessions), "turns": 0, "memories": 0, "merged": 0,
              "superseded": 0, "failures": 0}  # fmt: skip
    with open_memory(args) as mem:
        _check_sessions(mem, args, sessions)
        bar = tqdm(sessions, desc="ingest", unit="session", file=sys.stderr, disable=None)
        for session in bar:
            result = mem.add(
                session.messages,
                session_id=session.session_id,
                timestamp=session.timestamp,
                infer=not args.no_infer,
                **_scope(args),
            )
            totals["turns"] += len(result.turns)
            totals["memories"] += len(result.added)
            totals["merged"] += len(result.merged)
            totals["superseded"] += len(result.superseded)
            totals["failures"] += result.failures
    if args.json:
        emit_json({**totals, "store": redact(mem.settings.store)})
    else:
        print(
            f"ingested {totals['turns']} new turns in {totals['sessions']} sessions for "
            f"{args.user}: {totals['memories']} memories added, {totals['merged']} merged, "
            f"{totals['superseded']} superseded, {totals['failures']} extraction failures "
            f"(store {redact(mem.settings.store)})"
        )
    return 0


def _message_text(text: str) -> str:
    """The message, or all of stdin for ``-``."""
    if text != "-":
        return text
    try:
        data = sys.stdin.read()
    except UnicodeDecodeError:
        raise InputError("stdin is not UTF-8 text: pipe the message as UTF-8") from None
    if not data.strip():
        raise InputError("stdin is empty: pipe the message in (`echo TEXT | logicmem add - ...`)")
    return data


def add(args: argparse.Namespace) -> int:
    text = _message_text(args.text)
    said_at = normalize_time(args.time, field="--time")
    with open_memory(args) as mem:
        result = mem.add(
            text,
            session_id=args.session,
            timestamp=said_at,
            infer=not args.no_infer,
            **_scope(args),
        )
    if args.json:
        emit_json(result.to_dict())
    else:
        for entry in result.added:
            kept = entry.metadata.get("kept_from")
            how = f", kept from {str(kept)[:8]}" if kept else ""
            print(f"+ {entry.text}  ({entry.category}, id {entry.id[:8]}{how})")
        for memory_id in result.superseded:
            print(f"~ superseded {memory_id[:8]}")
        for memory_id in result.unmatched_forgets:
            print(
                f"! request to forget {memory_id[:8]} found no memory to close: nothing was "
                "forgotten; name it in other words (`logicmem search` shows how it was kept)"
            )
        if not result.added:
            print("stored the turn; no new memory (duplicate or nothing to remember)")
    return 0


def _as_of(args: argparse.Namespace) -> dict[str, Any]:
    """``as_of=`` for ``--as-of``, passed only when given."""
    when = normalize_time(args.as_of, field="--as-of")
    return {"as_of": when} if when else {}


def search(args: argparse.Namespace) -> int:
    as_of = _as_of(args)
    with open_memory(args) as mem:
        _require_user(mem, args.user)
        result = mem.search(args.query, k=args.k, method=args.method, **_scope(args), **as_of)
    if args.json:
        emit_json(result.to_dict())
    else:
        for hit in result.hits:
            print(hit_line(hit.rank, hit))
        print(f"-- {len(result.hits)} hits, method {result.method}, budget k={result.k}")
    return 0


def context(args: argparse.Namespace) -> int:
    as_of = _as_of(args)
    with open_memory(args) as mem:
        _require_user(mem, args.user)
        ctx = mem.context(args.query, k=args.k, max_tokens=args.max_tokens, **_scope(args), **as_of)
    if args.json:
        emit_json(ctx.to_dict())
    else:
        print("\n".join(context_lines(ctx)))
    return 0


def ask(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        _require_user(mem, args.user)
        answer = mem.answer(args.query, k=args.k, max_tokens=args.max_tokens, **_scope(args))
    if args.json:
        emit_json(answer.to_dict())
    else:
        print(answer.text)
        print(f"\n-- answered by {answer.model} from this context:", file=sys.stderr)
        print("\n".join(context_lines(answer.context)), file=sys.stderr)
    return 0


def consolidate(args: argparse.Namespace) -> int:
    only = [n.strip() for n in args.only.split(",") if n.strip()] if args.only else None
    with open_memory(args) as mem:
        _require_user(mem, args.user)
        done = mem.consolidate(only=only, **_scope(args))
    if args.json:
        emit_json(done)
    else:
        for name, stats in done.items():
            print(f"{name}: " + ", ".join(f"{k}={v}" for k, v in stats.items()))
        if not done:
            print("nothing to consolidate: no consolidator is registered")
    return 0


def reindex(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        if args.user is not None:
            _require_user(mem, args.user)
        count = mem.reindex(user_id=args.user, merges=False, stale=args.stale)
        restored = mem.rejudge_merges(user_id=args.user)
    who = f"user {args.user}" if args.user is not None else "every user"
    if args.json:
        emit_json(
            {"user": args.user, "memories_reindexed": count, "statements_restored": len(restored)}
        )
    else:
        which = " indexed by another version" if args.stale else ""
        print(f"reindexed {count} {'memory' if count == 1 else 'memories'}{which} of {who}")
        for entry in restored:
            print(f"restored  {entry.id[:8]}  {entry.text}  (had been merged as a repeat)")
    return 0


def list_memories(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        _require_user(mem, args.user)
        entries = mem.get_all(include_superseded=args.all, limit=args.limit, **_scope(args))
    if args.json:
        emit_json([e.to_dict() for e in entries])
    else:
        for e in entries:
            mark = "" if e.status == "active" else f" [superseded by {(e.superseded_by or '')[:8]}]"
            print(f"{e.id[:8]}  {e.category:<20} {e.text}{mark}")
        print(f"-- {len(entries)} memories")
    return 0


def history(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        rows = mem.history(args.memory_id, user_id=args.user)
    if args.json:
        emit_json(rows)
    else:
        for row in rows:
            print(f"{row['at']}  {row['event']:<9} {row['new_text'] or row['old_text']}")
    return 0


def _confirmed(question: str) -> bool:
    """Ask on the terminal (stderr, so ``--json`` stdout stays clean); only y/yes agrees."""
    print(question, end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def forget(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        _require_user(mem, args.user)
        n = len(mem.get_all(user_id=args.user, include_superseded=True))
        what = f"every trace of user {args.user} ({n} {'memory' if n == 1 else 'memories'})"
        if not args.yes:
            if not sys.stdin.isatty():
                raise InputError(
                    f"forget would remove {what} and stdin is not a terminal to confirm it: "
                    "pass --yes"
                )
            if not _confirmed(f"remove {what}? [y/N] "):
                print(f"kept user {args.user}: nothing removed", file=sys.stderr)
                return 1
        removed = mem.delete_user(args.user)
    if args.json:
        emit_json({"user": args.user, "memories_removed": removed})
    else:
        print(f"removed user {args.user}: {removed} memories and all turns and history")
    return 0


def export(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        _require_user(mem, args.user)
        from logicmem.types import Scope

        turns = mem.store.get_turns(Scope(args.user))
        memories = mem.get_all(user_id=args.user, include_superseded=True)
        target = Path(args.out) if args.out else None
        with open_for_write(target) if target else nullcontext(sys.stdout) as out:
            _write_export(out, args.user, turns, memories)
    if target is not None:
        print(f"wrote {len(turns)} turns and {len(memories)} memories to {target}")
    return 0


def _write_export(out: TextIO, user: str, turns: list[Any], memories: list[Any]) -> None:
    for t in turns:
        row = {"kind": "turn", "conversation": user, "session": t.session_id,
               "turn": t.turn_id, "speaker": t.speaker, "role": t.role, "text": t.text,
               "time": t.said_at}  # fmt: skip
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
    for m in memories:
        out.write(json.dumps({"kind": "memory", **m.to_dict()}, ensure_ascii=False) + "\n")


def stats(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        data = mem.stats()
    if args.json:
        emit_json(data)
    else:
        for key, value in data.items():
            print(f"{key:<14} {value}")
    stale = data["index"]["indexed_otherwise"]
    if stale:
        print(
            f"note: {stale} {'memory was' if stale == 1 else 'memories were'} indexed by another "
            "version of the rules or settings (an upgrade, or a changed [visibility] "
            "setting, or an LLM that did not answer); run `logicmem reindex --all-users "
            "--stale` to judge them again",
            file=sys.stderr,
        )
    return 0


def config(args: argparse.Namespace) -> int:
    settings = load_settings(
        {"store": args.store} if args.store else {}, config_file=args.config
    ).public_dict()
    if args.json:
        emit_json(settings)
    else:
        for section, values in settings.items():
            if isinstance(values, dict):
                print(f"[{section}]")
                for key, value in values.items():
                    print(f"{key} = {json.dumps(value)}")
            else:
                print(f"{section} = {json.dumps(values)}")
    return 0


def migrate(args: argparse.Namespace) -> int:
    from logicmem.store.migrate import migrate as copy_store
    from logicmem.store.sql import SQLStore
    from logicmem.store.url import MEMORY, open_store, parse_store_url

    source, destination = parse_store_url(args.source), parse_store_url(args.destination)
    if source == destination:
        raise InputError("SRC and DST are the same store: name two different stores")
    if source.backend == "sqlite" and (
        source.target == MEMORY or not Path(source.target).expanduser().exists()
    ):
        raise InputError(f"no store at {source}: SRC must be an existing store")
    src = open_store(args.source)
    try:
        dst = open_store(args.destination)
        try:
            if not isinstance(src, SQLStore) or not isinstance(dst, SQLStore):
                raise InputError("migrate copies between SQL stores (SQLite, PostgreSQL)")
            report = copy_store(src, dst, merge=args.merge)
        finally:
            dst.close()
    finally:
        src.close()
    if args.json:
        emit_json(report.as_dict())
        return 0
    print(f"copied {len(report.users)} users from {report.source} to {report.destination}")
    for table, n in report.rows.items():
        print(f"  {table:<18} {n}")
    print(f"verified: row counts equal, texts checksum {report.checksum[:16]}")
    return 0
