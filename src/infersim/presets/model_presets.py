"""Named model presets, shipped as HuggingFace ``config.json`` files under ``presets/models``.

``PRESETS["Llama 3.1 70B"].model`` is a :class:`~infersim.specs.model.ModelSpec`; ``published_params``
is the total the model card states (tests hold the computed count within 1 % of it).
"""
from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass
from functools import cached_property
from importlib import resources

from infersim.errors import InferSimError, InferSimWarning
from infersim.loaders.hf_model import model_from_hf_config
from infersim.specs.model import ModelSpec


@dataclass(frozen=True)
class ModelPreset:
    name: str
    file: str
    published_params: float
    source: str
    published_active_params: float | None = None

    @cached_property
    def model(self) -> ModelSpec:
        """The preset's spec. Loading warnings are silenced: the source above states what each
        published count leaves out (DeepSeek-V3's MTP module, for one)."""
        path = resources.files("infersim") / "presets" / "models" / self.file
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InferSimWarning)
            return model_from_hf_config(path.read_text(encoding="utf-8"), name=self.name)


_P = ModelPreset
PRESETS: dict[str, ModelPreset] = {p.name: p for p in [
    _P("Llama 3.1 8B", "llama-3.1-8b.json", 8.03e9, "meta-llama/Llama-3.1-8B model card"),
    _P("Llama 3.1 70B", "llama-3.1-70b.json", 70.55e9, "meta-llama/Llama-3.1-70B model card"),
    _P("Llama 3.1 405B", "llama-3.1-405b.json", 405.85e9, "meta-llama/Llama-3.1-405B model card"),
    _P("Llama 2 7B", "llama-2-7b.json", 6.74e9, "Touvron et al. 2023, Llama 2 (HF card: 6.74B)"),
    _P("Llama 2 13B", "llama-2-13b.json", 13.02e9, "Touvron et al. 2023, Llama 2 (HF card: 13.0B)"),
    _P("Llama 2 70B", "llama-2-70b.json", 68.98e9, "Touvron et al. 2023, Llama 2 (HF card: 69.0B)"),
    _P("Mistral 7B", "mistral-7b.json", 7.24e9, "mistralai/Mistral-7B-v0.1 (HF card: 7.24B)"),
    _P("Qwen2.5 72B", "qwen2.5-72b.json", 72.7e9, "Qwen2.5 technical report / model card: 72.7B"),
    _P("GPT-3 175B", "gpt-3-175b.json", 175.0e9, "Brown et al. 2020, Table 2.1"),
    _P("Megatron-530B", "megatron-turing-nlg-530b.json", 530e9, "Smith et al. 2022, Megatron-Turing NLG 530B: "
       "105 layers, hidden 20480, 128 heads, 2048 positions (FasterTransformer's Megatron-530B benchmark model)"),
    _P("GPT-J 6B", "gpt-j-6b.json", 6.05e9, "EleutherAI/gpt-j-6b model card: 6,053,381,344"),
    _P("Mixtral 8x7B", "mixtral-8x7b.json", 46.7e9, "Mistral AI, Mixtral of Experts (2024): 46.7B",
       published_active_params=12.9e9),
    _P("Mixtral 8x22B", "mixtral-8x22b.json", 141e9, "Mistral AI, Mixtral 8x22B announcement: 141B",
       published_active_params=39e9),
    _P("DeepSeek-V3", "deepseek-v3.json", 671e9, "DeepSeek-V3 technical report (2024): 671B, MTP excluded",
       published_active_params=37e9),
    _P("Qwen3-235B-A22B", "qwen3-235b-a22b.json", 235e9, "Qwen3 technical report (2025): 235B",
       published_active_params=22e9),
    # full HF config.json copies; where each file comes from: presets/models/SOURCES.md
    _P("Llama 3.3 70B", "llama-3.3-70b.json", 70.55e9, "meta-llama/Llama-3.3-70B-Instruct: the Llama 3.1 70B "
       "architecture (70,553,706,496 parameters, HF safetensors)"),
    _P("Qwen2.5-7B-Instruct", "qwen2.5-7b-instruct.json", 7.61e9, "Qwen2.5-7B model card: 7.61B (6.53B non-embedding)"),
    _P("Qwen3-32B", "qwen3-32b.json", 32.8e9, "Qwen3-32B model card: 32.8B"),
    _P("Qwen3-30B-A3B", "qwen3-30b-a3b.json", 30.5e9, "Qwen3-30B-A3B model card: 30.5B total, 3.3B activated",
       published_active_params=3.3e9),
    _P("gpt-oss-120b", "gpt-oss-120b.json", 117e9, "openai/gpt-oss-120b model card: 117B parameters, 5.1B active "
       "(active excludes the input embedding; MXFP4 experts)"),
    _P("gpt-oss-20b", "gpt-oss-20b.json", 21e9, "openai/gpt-oss-20b model card: 21B parameters, 3.6B active "
       "(active excludes the input embedding; MXFP4 experts)"),
    _P("Llama 4 Scout 17B-16E", "llama-4-scout-17b-16e.json", 109e9 - 871_932_416,
       "HF blog 'Welcome Llama 4 Maverick & Scout': ~109B total, 17B active; less the 871,932,416-parameter "
       "vision encoder infersim does not model", published_active_params=17e9),
    _P("Llama 4 Maverick 17B-128E", "llama-4-maverick-17b-128e.json", 400e9 - 871_932_416,
       "HF blog 'Welcome Llama 4 Maverick & Scout': ~400B total (transformers docs: 402B), 17B active; less the "
       "871,932,416-parameter vision encoder", published_active_params=17e9),
    _P("DeepSeek-R1", "deepseek-r1.json", 671e9, "DeepSeek-R1 model card: the DeepSeek-V3 architecture, 671B total "
       "(MTP module excluded), 37B activated; fp8 checkpoint", published_active_params=37e9),
]}

DEFAULT_MODEL = "Llama 3.1 70B"


def get_model(name: str) -> ModelSpec:
    """The preset's ModelSpec, or a one-line error listing the valid names."""
    try:
        return PRESETS[name].model
    except KeyError:
        raise InferSimError(
            f"unknown model preset {name!r}; valid: {', '.join(PRESETS)}") from None


def hf_repo(name: str) -> str | None:
    """The HuggingFace repository id of preset ``name`` (its config's ``_name_or_path`` when that
    is an ``owner/name`` id), or None (not a preset, or a paper-only model such as GPT-3)."""
    preset = PRESETS.get(name)
    if preset is None:
        return None
    path = resources.files("infersim") / "presets" / "models" / preset.file
    repo = json.loads(path.read_text(encoding="utf-8")).get("_name_or_path", "")
    return repo if re.fullmatch(r"[\w.-]+/[\w.-]+", repo) else None


def as_model(model) -> ModelSpec:
    """A ModelSpec from a spec, a preset entry (``PRESETS[name]``) or a preset name: the API's
    functions take what users pass; anything else is a one-line error."""
    if isinstance(model, ModelSpec):
        return model
    if isinstance(model, str):
        return get_model(model)
    if isinstance(getattr(model, "model", None), ModelSpec):
        return model.model
    raise InferSimError(f"model must be a ModelSpec or a model preset name, got {type(model).__name__}")


__all__ = ["ModelPreset", "PRESETS", "DEFAULT_MODEL", "get_model", "hf_repo", "as_model"]
