"""Named model presets, shipped as HuggingFace ``config.json`` files under ``presets/models``.

``PRESETS["Llama 3.1 70B"].model`` is a :class:`~infersim.specs.model.ModelSpec`; ``published_params``
is the total the model card states (tests hold the computed count within 1 % of it).
"""
from __future__ import annotations

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
    _P("GPT-J 6B", "gpt-j-6b.json", 6.05e9, "EleutherAI/gpt-j-6b model card: 6,053,381,344"),
    _P("Mixtral 8x7B", "mixtral-8x7b.json", 46.7e9, "Mistral AI, Mixtral of Experts (2024): 46.7B",
       published_active_params=12.9e9),
    _P("Mixtral 8x22B", "mixtral-8x22b.json", 141e9, "Mistral AI, Mixtral 8x22B announcement: 141B",
       published_active_params=39e9),
    _P("DeepSeek-V3", "deepseek-v3.json", 671e9, "DeepSeek-V3 technical report (2024): 671B, MTP excluded",
       published_active_params=37e9),
    _P("Qwen3-235B-A22B", "qwen3-235b-a22b.json", 235e9, "Qwen3 technical report (2025): 235B",
       published_active_params=22e9),
]}

DEFAULT_MODEL = "Llama 3.1 70B"


def get_model(name: str) -> ModelSpec:
    """The preset's ModelSpec, or a one-line error listing the valid names."""
    try:
        return PRESETS[name].model
    except KeyError:
        raise InferSimError(
            f"unknown model preset {name!r}; valid: {', '.join(PRESETS)}") from None


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


__all__ = ["ModelPreset", "PRESETS", "DEFAULT_MODEL", "get_model", "as_model"]
