"""RuleMem (seed rulemem.md): rules induced from a user's memories guide recall and reasoning.

Offline (the ``rulemem`` consolidator, ``build.py``): memories become temporal quadruples
(``facts.py``), constrained random walks over the entity graph give reasoning paths
(``walks.py``), paths become natural-language Horn rules (``induce.py``) and Rule
Perplexity Consistency admits or rejects each rule (``rpc.py``). At query time
(``route.py``) the rules whose heads are closest to the query are activated, their body
atoms recall evidence, and each rule enters the context as a major premise
(``prompt.py`` tells the answerer how to use it).

Models: a *capable* LLM (an OpenAI-compatible server: ``LOGICMEM_LLM=openai``,
``LOGICMEM_LLM_BASE_URL``, ``LOGICMEM_LLM_MODEL``) extracts the quadruples and induces the
rules; log-likelihoods for RPC come from that server when it returns prompt logprobs
(vLLM-style ``echo``), else from ``[rulemem] rpc_provider`` (default ``local``, the
embedded SmolLM2, offline). Without a capable LLM the rule-based reader and path
templates stand in, so the bench runs offline; expect weak rules then. The bench, e.g.:

    LOGICMEM_LLM=openai LOGICMEM_LLM_BASE_URL=http://host:8000/v1 LOGICMEM_LLM_MODEL=m \\
    logicmem bench imlogic --items FILE --background DIR \\
        --methods hybrid,rulemem,rulemem_norpc,rulemem_norules --k 10,30 --out DIR
"""
