"""``logicmem keys`` and ``logicmem serve`` from the command line."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from servekit import free_port

from logicmem.cli.main import main
from logicmem.service.keys import KeyRing
from logicmem.store.url import open_store

pytestmark = pytest.mark.usefixtures("fast_env")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_keys_create_prints_the_key_once_on_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "k.db")
    code, out, err = _run(capsys, "keys", "create", "--tenant", "acme", "--store", store)
    assert code == 0
    key = out.strip()
    assert out == key + "\n" and key.startswith("lm_")
    key_id = key.split("_")[1]
    assert key_id in err and key not in err
    ring = KeyRing(open_store(store))
    assert ring.verify(key) is not None and ring.verify(key).tenant == "acme"
    code, out, _ = _run(capsys, "keys", "list", "--store", store)
    assert code == 0 and key_id in out and key.split("_", 2)[2] not in out
    code, out, _ = _run(capsys, "keys", "revoke", key_id, "--store", store, "--tenant", "beta")
    assert code == 2  # not beta's key
    code, out, _ = _run(capsys, "keys", "revoke", key_id, "--store", store)
    assert code == 0 and "revoked" in out
    assert KeyRing(open_store(store)).verify(key) is None
    code, out, _ = _run(capsys, "keys", "list", "--store", store, "--all", "--json")
    assert code == 0 and '"revoked_at": "' in out


@pytest.mark.parametrize(
    "argv",
    [
        ["keys", "create", "--tenant", "a/b"],
        ["keys", "revoke", "nope"],
        ["serve", "--workers", "0"],
        ["serve", "--port", "70000"],
    ],
)
def test_bad_service_arguments_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, out, err = _run(capsys, *argv, "--store", str(tmp_path / "s.db"))
    assert code == 2 and out == ""
    assert err.startswith("logicmem: error: ") and err.count("\n") == 1


@pytest.mark.slow
def test_serve_with_two_workers_answers_and_aggregates_metrics(
    tmp_path: Path, model_cache: Path
) -> None:
    """The real command: uvicorn with two worker processes on 127.0.0.1, MiniLM, no LLM
    (the visible route off, so the start does not train its classifier)."""
    store = str(tmp_path / "served.db")
    config = tmp_path / "logicmem.toml"
    config.write_text('[llm]\nprovider = "none"\n\n[visibility]\nenabled = false\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOGICMEM_")}
    env.update(XDG_CACHE_HOME=str(model_cache), HF_HUB_OFFLINE="1")
    key = subprocess.run(
        [sys.executable, "-m", "logicmem.cli.main", "keys", "create", "--tenant", "acme",
         "--store", store],
        env=env, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "logicmem.cli.main", "serve", "--store", store, "--config",
         str(config), "--port", str(port), "--workers", "2", "--log-level", "warning"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            try:
                if httpx.get(f"{base}/readyz", timeout=30).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "logicmem serve did not get ready"
            time.sleep(0.3)
        headers = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
            r = client.post("/v1/users/max/memories", json={"text": "I cycle to work daily."})
            assert r.status_code == 201, r.text
            for _ in range(10):
                hits = client.post("/v1/users/max/search", json={"query": "commute"}).json()
                assert "cycle" in hits["hits"][0]["text"]
            assert client.get("/v1/users").json() == {"users": ["max"]}
            metrics = client.get("/metrics").text
        line = (
            'logicmem_requests_total{method="POST",route="/v1/users/{user_id}/search",status="200"}'
        )
        [count] = [float(m.split()[-1]) for m in metrics.splitlines() if m.startswith(line)]
        assert count == 10  # both workers' counts, whichever answered the scrape
    finally:
        proc.terminate()
        proc.wait(30)
