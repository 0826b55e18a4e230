"""``logicmem bench``: the evaluation harness (generic recall, InMind, IMLogic, LoCoMo).

One engine builds stores and traces each context item back to gold turns through its
provenance; adapters turn each benchmark's files into stores and probes. See
docs/benchmarks.md for the protocols and numbers.
"""
