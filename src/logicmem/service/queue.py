"""Which job runner a service uses: in process on SQLite (and, until a queue is set up,
everywhere)."""

from __future__ import annotations

from logicmem.memory import Memory
from logicmem.service.jobs import InProcessJobs, Jobs


def build_jobs(memory: Memory) -> Jobs:
    return InProcessJobs(memory)
