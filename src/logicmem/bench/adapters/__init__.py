"""Benchmark adapters: each maps a benchmark's files onto the engine's plans and probes."""
