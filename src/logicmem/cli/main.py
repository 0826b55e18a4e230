"""``logicmem``: the command line. Errors become one clear line and exit code 2.

Set ``LOGICMEM_DEBUG=1`` to get the full traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from logicmem import __version__
from logicmem.cli import commands, demo, service
from logicmem.errors import LogicmemError
from logicmem.service import mcp_server, queue

Handler = Callable[[argparse.Namespace], int]


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--store",
        help="store path or URL: a file, sqlite:///abs/path.db, :memory:, "
        "postgresql://user@host/db (default: $LOGICMEM_STORE or the user data dir)",
    )
    p.add_argument("--config", help="TOML settings file (default: $LOGICMEM_CONFIG)")


def _user(p: argparse.ArgumentParser) -> None:
    p.add_argument("--user", required=True, help="whose memory (user id)")
    p.add_argument("--agent", help="narrow to an agent id (mem0-style scoping)")
    p.add_argument("--run", help="narrow to a run id")


def _json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON")


TIME_HELP = "ISO 8601 like 2024-03-02T14:30, or e.g. '8 May 2023'; a zone is converted to UTC"


def _as_of(p: argparse.ArgumentParser) -> None:
    p.add_argument("--as-of", metavar="TIME", help=f"what was known at this time ({TIME_HELP})")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="logicmem",
        description="Long-term memory that brings the logically relevant memory into context.",
    )
    parser.add_argument("--version", action="version", version=f"logicmem {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def cmd(name: str, handler: Handler, help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        _common(p)
        p.set_defaults(handler=handler)
        return p

    p = cmd("demo", demo.run, "ingest a sample conversation and show search vs context")
    p.add_argument("--keep", action="store_true", help="keep the demo store (prints its path)")

    p = cmd("ingest", commands.ingest, "ingest a conversation file for a user")
    p.add_argument("file", help="LoCoMo JSON or generic history JSONL")
    p.add_argument("--format", required=True, choices=["locomo", "jsonl"], dest="fmt")
    p.add_argument("--conversation", help="jsonl only: which conversation of the file")
    p.add_argument("--no-infer", action="store_true", help="store turns verbatim as memories")
    _user(p)
    _json(p)

    p = cmd("add", commands.add, "add one message said by the user")
    p.add_argument("text", help="the message, or - to read it from stdin")
    p.add_argument("--session", help="session id (default: a new one)")
    p.add_argument("--time", metavar="TIME", help=f"when it was said ({TIME_HELP})")
    p.add_argument("--no-infer", action="store_true", help="store the text verbatim")
    _user(p)
    _json(p)

    p = cmd("search", commands.search, "semantic search over a user's memories")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--method", default="hybrid", help="bm25, dense, hybrid or a registered one")
    _as_of(p)
    _user(p)
    _json(p)

    for name, handler, text in (
        ("context", commands.context, "the budgeted context for a request, with reasons"),
        ("ask", commands.ask, "answer a request with the configured LLM and the context"),
    ):
        p = cmd(name, handler, text)
        p.add_argument("query")
        p.add_argument("-k", type=int, default=30)
        p.add_argument("--max-tokens", type=int, help="token budget for the context")
        if name == "context":
            _as_of(p)
        _user(p)
        _json(p)

    p = cmd(
        "consolidate",
        commands.consolidate,
        "build root units, rules and the profile from new memories",
    )
    p.add_argument("--only", help="comma-separated consolidators (default: all registered)")
    _user(p)
    _json(p)

    p = cmd(
        "reindex",
        commands.reindex,
        "judge stored memories again with this version's rules (after an upgrade)",
    )
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--user", help="whose memories (user id)")
    who.add_argument("--all-users", action="store_true", help="every user's memories")
    p.add_argument(
        "--stale",
        action="store_true",
        help="only the memories another version of the rules or settings indexed "
        "(those `stats` counts); without it, every memory",
    )
    _json(p)

    p = cmd("list", commands.list_memories, "list a user's memories")
    p.add_argument("--all", action="store_true", help="include superseded memories")
    p.add_argument("--limit", type=int)
    _user(p)
    _json(p)

    p = cmd("history", commands.history, "the change history of one memory")
    p.add_argument("memory_id")
    # the user only: history outlives a memory's scope (Memory.history takes user_id alone)
    p.add_argument("--user", required=True, help="whose memory (user id)")
    _json(p)

    p = cmd("forget", commands.forget, "remove every trace of a user (asks first)")
    p.add_argument("--user", required=True)
    p.add_argument(
        "--yes", action="store_true", help="do not ask (needed when stdin is not a terminal)"
    )
    _json(p)

    p = cmd("export", commands.export, "export a user's turns and memories as JSONL")
    p.add_argument("--user", required=True)
    p.add_argument("--out", help="file to write, its folder created if missing (default: stdout)")

    p = cmd("stats", commands.stats, "counts, failures and size of the store")
    _json(p)

    p = sub.add_parser(
        "migrate",
        help="copy a store to another (SQLite <-> PostgreSQL), verified",
        description="Copy every user of SRC, with their memories, history, profile, root "
        "units and rules, into DST (a file path, sqlite:///..., or postgresql://...); counts "
        "and a checksum of the texts are verified before the copy commits.",
    )
    p.add_argument("source", metavar="SRC", help="the store to copy (it is only read)")
    p.add_argument("destination", metavar="DST", help="an empty store (or see --merge)")
    p.add_argument(
        "--merge", action="store_true", help="add SRC's users to a DST that already has others"
    )
    _json(p)
    p.set_defaults(handler=commands.migrate)

    p = cmd("config", commands.config, "show the resolved settings")
    p.add_argument("action", choices=["show"])
    _json(p)

    service.add_parsers(sub)
    mcp_server.add_parser(sub)
    queue.add_parser(sub)
    _add_bench(sub)
    return parser


def _add_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    try:
        from logicmem.bench.cli import add_parser
    except ImportError:  # the bench package is optional at import time
        return
    add_parser(sub)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except LogicmemError as exc:
        if os.environ.get("LOGICMEM_DEBUG"):
            raise
        print(f"logicmem: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("logicmem: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
