"""mem0-compatible routes (the paths and bodies of mem0's platform API)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI

from logicmem.service.metrics import Metrics


def mount(
    app: FastAPI, *, tenant: Callable[..., Any], principal: Callable[..., Any], metrics: Metrics
) -> None:
    """Add the mem0-compatible routes to ``app``."""
