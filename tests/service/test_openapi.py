"""The OpenAPI schema is a contract: the checked-in ``docs/openapi.json`` is what the code
generates, and schemathesis, run against the server on 127.0.0.1, finds no 5xx and no
response that breaks the schema."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kit import HashEmbedder
from servekit import serve

from logicmem import Memory
from logicmem.service.app import create_app
from logicmem.service.keys import KeyRing
from logicmem.service.openapi import schema

ROOT = Path(__file__).resolve().parents[2]
CHECKS = (
    "not_a_server_error,status_code_conformance,content_type_conformance,"
    "response_schema_conformance"
)


def test_checked_in_schema_matches_the_code() -> None:
    checked_in = json.loads((ROOT / "docs" / "openapi.json").read_text())
    assert checked_in == schema(), (
        "docs/openapi.json is out of date: regenerate it with "
        "`python -m logicmem.service.openapi docs/openapi.json`"
    )


def test_every_route_documents_its_errors() -> None:
    for path, operations in schema()["paths"].items():
        for method, op in operations.items():
            if path.startswith("/v1"):
                assert {"401", "404", "422"} <= set(op["responses"]), (method, path)


def _st() -> str:
    found = Path(sys.executable).with_name("st")
    if found.exists():
        return str(found)
    which = shutil.which("st")
    if which is None:
        pytest.skip("schemathesis (`st`) is not installed: pip install -e '.[dev]'")
    return which


@pytest.mark.parametrize("who", ["tenant", "admin"])
def test_schemathesis_finds_no_server_error_and_no_schema_mismatch(
    tmp_path: Path, who: str
) -> None:
    mem = Memory(tmp_path / "st.db", embedder=HashEmbedder(), config={"llm": {"provider": "none"}})
    ring = KeyRing(mem.store)
    key = ring.create("acme")[1] if who == "tenant" else ring.create(None, admin=True)[1]
    # some data, so reads reach past "not found"
    mem.add("I keep kosher and my sister is visiting in June.", user_id="acme/0", infer=False)
    selection = ["--exclude-tag", "keys"] if who == "tenant" else ["--include-tag", "keys"]
    with serve(create_app(mem)) as base:
        run = subprocess.run(
            [
                _st(),
                "run",
                f"{base}/openapi.json",
                "-H",
                f"Authorization: Bearer {key}",
                "--checks",
                CHECKS,
                *selection,
                "--max-examples",
                "100",
                "--seed",
                "1",
                "--generation-database",
                "none",
                "--no-color",
                "--request-timeout",
                "30",
                "--phases",
                "examples,coverage,fuzzing",
            ],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
    mem.close()
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "passed" in run.stdout
