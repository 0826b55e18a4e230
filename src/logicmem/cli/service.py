"""``logicmem serve`` and ``logicmem keys``: the HTTP service and its API keys."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from logicmem.cli.output import emit_json
from logicmem.config import load_settings
from logicmem.errors import InputError
from logicmem.service.keys import KeyRing
from logicmem.store.base import Store
from logicmem.store.url import open_store, redact

DEFAULT_PORT = 8420
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _settings_env(args: argparse.Namespace) -> None:
    """The store and config the service's workers read (each is a process of its own)."""
    if getattr(args, "store", None):
        os.environ["LOGICMEM_STORE"] = args.store
    if getattr(args, "config", None):
        os.environ["LOGICMEM_CONFIG"] = os.path.abspath(args.config)


def _open(args: argparse.Namespace) -> Store:
    tree: dict[str, Any] = {"store": args.store} if getattr(args, "store", None) else {}
    settings = load_settings(tree, config_file=getattr(args, "config", None))
    return open_store(settings.store)


@contextmanager
def _keyring(args: argparse.Namespace) -> Iterator[KeyRing]:
    store = _open(args)
    try:
        yield KeyRing(store)
    finally:
        store.close()


def _where(args: argparse.Namespace) -> str:
    tree: dict[str, Any] = {"store": args.store} if getattr(args, "store", None) else {}
    return redact(load_settings(tree, config_file=getattr(args, "config", None)).store)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--store",
        help="store path or URL (default: $LOGICMEM_STORE or the user data dir); "
        "postgresql://... for several machines",
    )
    common.add_argument("--config", help="TOML settings file (default: $LOGICMEM_CONFIG)")

    p = sub.add_parser(
        "serve",
        parents=[common],
        help="run the HTTP service (FastAPI): many tenants, API keys, mem0-compatible routes",
        description="Serve the memory over HTTP. Every request needs an API key "
        "(`logicmem keys create --tenant NAME`); /healthz, /readyz and /metrics do not. "
        "The OpenAPI schema is at /openapi.json, the docs at /docs.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    p.set_defaults(handler=serve)

    p = sub.add_parser(
        "keys",
        help="create, list and revoke the service's API keys",
        description="API keys of `logicmem serve`, kept hashed in the store. A tenant key "
        "reaches that tenant's users only; an admin key manages keys over HTTP (/v1/keys).",
    )
    ks = p.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    c = ks.add_parser(
        "create",
        parents=[common],
        help="a new key, printed once on stdout",
        description="Create a key and print it once on stdout (it is stored hashed, so it "
        "cannot be shown again); its id goes to stderr.",
    )
    who = c.add_mutually_exclusive_group(required=True)
    who.add_argument("--tenant", help="the tenant the key belongs to (e.g. acme)")
    who.add_argument("--admin", action="store_true", help="an admin key (manages keys only)")
    c.add_argument("--name", default="", help="a label, e.g. the application using it")
    c.add_argument("--json", action="store_true", help="print the key and its record as JSON")
    c.set_defaults(handler=keys_create)
    ls = ks.add_parser("list", parents=[common], help="list keys (never their secrets)")
    ls.add_argument("--tenant", help="only this tenant's keys")
    ls.add_argument("--all", action="store_true", help="include revoked keys")
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.set_defaults(handler=keys_list)
    rv = ks.add_parser("revoke", parents=[common], help="revoke a key by its id")
    rv.add_argument("key_id", help="the key's id (`logicmem keys list`)")
    rv.add_argument("--tenant", help="refuse unless the key is this tenant's")
    rv.add_argument("--json", action="store_true", help="print JSON")
    rv.set_defaults(handler=keys_revoke)


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    if args.workers < 1:
        raise InputError(f"--workers must be at least 1, got {args.workers}")
    if not 0 < args.port < 65536:
        raise InputError(f"--port must be between 1 and 65535, got {args.port}")
    _settings_env(args)
    store = _open(args)  # applies migrations once, before the workers race to
    try:
        where = _where(args)
        if not KeyRing(store).list():
            print(
                "logicmem: no API keys yet: create one with "
                "`logicmem keys create --tenant NAME` (every request needs one)",
                file=sys.stderr,
            )
    finally:
        store.close()
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"logicmem: serving on {args.host} without TLS: put it behind a proxy that "
            "terminates TLS, or keys travel in clear",
            file=sys.stderr,
        )
    # One BLAS thread per worker process unless the environment says otherwise: requests
    # run concurrently, and a second OpenBLAS thread per process only spun (measured: the
    # same throughput for half a core more; docs/performance.md).
    for var in BLAS_THREADS:
        os.environ.setdefault(var, "1")
    if args.workers == 1:  # this process serves, and numpy is already loaded in it
        _limit_loaded_blas(int(os.environ["OPENBLAS_NUM_THREADS"]))
    metrics_dir = None
    if args.workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        metrics_dir = tempfile.mkdtemp(prefix="logicmem-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    print(
        f"logicmem: serving {where} on http://{args.host}:{args.port} "
        f"({args.workers} worker{'s' if args.workers > 1 else ''}); docs at /docs",
        file=sys.stderr,
    )
    try:
        uvicorn.run(
            "logicmem.service.app:create_app",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            log_level=args.log_level,
            timeout_graceful_shutdown=10,
        )
    finally:
        if metrics_dir:
            shutil.rmtree(metrics_dir, ignore_errors=True)
    return 0


def _limit_loaded_blas(threads: int) -> None:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # then the environment variables apply to worker processes only
        return
    threadpool_limits(limits=threads, user_api="blas")


def keys_create(args: argparse.Namespace) -> int:
    with _keyring(args) as ring:
        record, key = ring.create(args.tenant, name=args.name, admin=args.admin)
    if args.json:
        emit_json({**record.to_dict(), "key": key})
        return 0
    who = "admin key" if record.admin else f"key for tenant {record.tenant}"
    print(f"created {who}, id {record.key_id}; it is shown only this once:", file=sys.stderr)
    print(key)
    return 0


def keys_list(args: argparse.Namespace) -> int:
    with _keyring(args) as ring:
        keys = ring.list(args.tenant, include_revoked=args.all)
    if args.json:
        emit_json([k.to_dict() for k in keys])
        return 0
    if not keys:
        print("no keys: create one with `logicmem keys create --tenant NAME`", file=sys.stderr)
    for k in keys:
        state = f"revoked {k.revoked_at}" if k.revoked_at else "active"
        tenant = "(admin)" if k.admin else k.tenant
        print(f"{k.key_id}  {tenant:<20} {state:<10} created {k.created_at}  {k.name}")
    return 0


def keys_revoke(args: argparse.Namespace) -> int:
    with _keyring(args) as ring:
        key = ring.revoke(args.key_id, tenant=args.tenant)
    if args.json:
        emit_json(key.to_dict())
    else:
        print(f"revoked key {key.key_id} ({key.tenant}) at {key.revoked_at}")
    return 0
