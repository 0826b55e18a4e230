"""Prometheus metrics of the service (prometheus-client).

With several workers (``logicmem serve --workers N``) each is a process of its own; the
serve command then sets ``PROMETHEUS_MULTIPROC_DIR`` and ``/metrics`` aggregates every
worker's counters from there. The gauges that describe the store (pending turns) are read
from the store at scrape time, so they are right whichever worker answers.
"""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)


class Metrics:
    def __init__(self) -> None:
        self.multiprocess = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))
        # In multiprocess mode the metrics live in the default registry's files.
        self.registry = None if self.multiprocess else CollectorRegistry()
        kw: dict[str, Any] = {"registry": self.registry} if self.registry else {}
        self.requests = Counter(
            "logicmem_requests_total",
            "HTTP requests by route template, method and status code",
            ["route", "method", "status"],
            **kw,
        )
        self.latency = Histogram(
            "logicmem_request_seconds",
            "HTTP request latency by route template",
            ["route", "method"],
            buckets=BUCKETS,
            **kw,
        )
        self.extraction_failures = Counter(
            "logicmem_extraction_failures_total",
            "LLM extraction attempts that failed (the rule extractor took over)",
            **kw,
        )
        self.jobs = Counter(
            "logicmem_jobs_total",
            "Background jobs (extract, consolidate) by final status",
            ["task", "status"],
            **kw,
        )
        self.job_seconds = Histogram(
            "logicmem_job_seconds", "Background job duration", ["task"], buckets=BUCKETS, **kw
        )
        self.jobs_enqueued = Counter(
            "logicmem_jobs_enqueued_total", "Background jobs enqueued", ["task"], **kw
        )

    def job_done(self, task: str, status: str, seconds: float) -> None:
        self.jobs.labels(task, status).inc()
        self.job_seconds.labels(task).observe(seconds)

    def render(self, gauges: dict[str, tuple[str, float]]) -> tuple[bytes, str]:
        """The exposition text: this registry (or every worker's) plus ``gauges``
        (name -> (help, value)) read just now."""
        if self.multiprocess:
            from prometheus_client import multiprocess

            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)
        else:
            assert self.registry is not None
            registry = self.registry
        body = generate_latest(registry)
        extra = CollectorRegistry()

        class _Gauges:
            def collect(self):
                for name, (text, value) in gauges.items():
                    yield GaugeMetricFamily(name, text, value=value)

        extra.register(_Gauges())
        return body + generate_latest(extra), CONTENT_TYPE_LATEST
