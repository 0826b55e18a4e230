"""RootMem (seed rootmem-imlogic.md §4): root memory units U = <R, E> and their router.

- ``units``: how a unit is rendered (for prompts, for the router's pre-filter, as a
  context block) and where its evidence traces to.
- ``ops``: the construction operations (create, enrich, refine, merge) validated and
  applied to a batch's working copy under the unit budget K.
- ``build``: the ``rootmem`` consolidator, the incremental construction Φ_C.
- ``router``: Φ_R, an embedding pre-filter then one batched LLM call, decisions cached.
- ``route``: the ``rootmem`` route and the bench methods (and IMLogic App. D ablations).
"""
