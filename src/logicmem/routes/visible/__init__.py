"""The visibility route: keep decision-critical facts in view, and know when they matter.

- ``kb``: the anticipation knowledge resource (package data, public sources per entry)
- ``criticality``: is a memory a standing constraint, of what type, linked to which entries
- ``hook``: write-time assessment and anticipation keys
- ``route``: the query-time visible slice (``visible`` method) with provenance
- ``profile``: the InMind always-in-state probe (``profile`` consolidator, ``profile_llm``
  method); ``profile_text``: its file format (updater prompt, provenance tags, limits)
"""
