"""Readers and writers for conversation files (LoCoMo, generic history JSONL, exports)."""
