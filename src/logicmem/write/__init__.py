"""The write path: store raw turns, extract memories, merge duplicates, supersede."""
