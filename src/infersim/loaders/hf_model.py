"""A HuggingFace ``config.json`` (a path, JSON text, an already-parsed dict, or an upload's bytes)
→ a validated :class:`~infersim.specs.model.ModelSpec`.

The field mapping and its warnings are :func:`infersim.loaders.hf_config.model_kwargs`; this module
builds the spec from them, so that the loaders point at the specs and never the other way.
"""
from __future__ import annotations

import os
from dataclasses import fields
from typing import Any, Mapping

from infersim.errors import InferSimError, require
from infersim.loaders.files import decode_capped
from infersim.loaders.hf_config import model_kwargs
from infersim.loaders.hf_read import parse
from infersim.specs.model import ModelSpec

#: Largest uploaded config.json accepted (real ones are a few KB; DeepSeek-V3's is under 2 KB).
MAX_CONFIG_BYTES = 1 << 20


def model_from_hf_config(source: str | os.PathLike | Mapping[str, Any], name: str | None = None,
                         **overrides) -> ModelSpec:
    """Build a spec from a HuggingFace ``config.json`` path, JSON text or already-parsed dict;
    ``overrides`` replace fields of the result (e.g. ``weight_dtype="fp8"``)."""
    kwargs = model_kwargs(source, name)
    valid = {f.name for f in fields(ModelSpec)}
    unknown = set(overrides) - valid
    require(not unknown, f"unknown ModelSpec fields {sorted(unknown)}; valid: {sorted(valid)}")
    kwargs.update(overrides)
    try:
        return ModelSpec(**kwargs)
    except InferSimError as exc:
        raise InferSimError(f"config.json describes an invalid model: {exc}") from None


def model_from_hf_config_text(data: bytes | str, name: str | None = None) -> ModelSpec:
    """Build a spec from the *content* of a HuggingFace ``config.json`` (a UI upload).

    Unlike :func:`model_from_hf_config`, the input is never treated as a path: text such as
    ``/etc/passwd`` is parsed as JSON and rejected like any other bad content, so an upload can
    neither read a server file nor learn whether one exists. Content over
    :data:`MAX_CONFIG_BYTES` is refused; parsing is :func:`infersim.loaders.hf_read.parse` (finite
    numbers, bounded nesting), every failure one line that never echoes the content."""
    raw = data.encode("utf-8", errors="replace") if isinstance(data, str) else bytes(data)
    require(len(raw) <= MAX_CONFIG_BYTES,
            f"config.json too large: {len(raw):,} bytes; the limit is {MAX_CONFIG_BYTES:,}")
    text = decode_capped(raw, MAX_CONFIG_BYTES, "uploaded config.json", "config.json")
    return model_from_hf_config(parse(text.removeprefix("\ufeff")), name=name)
