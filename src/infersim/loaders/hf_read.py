"""Reading a HuggingFace ``config.json`` safely: size cap, UTF-8, finite numbers, bounded nesting,
and typed field access that names the field and its valid range in every error.

Everything here raises :class:`~infersim.errors.InferSimError` with one line; nothing hangs or
reads without bound (``--config /dev/zero`` stops at :data:`MAX_CONFIG_BYTES`).
"""
from __future__ import annotations

import json
import math
import os
from typing import Any, Mapping

from infersim.errors import InferSimError, short_repr
from infersim.loaders.files import decode_capped, read_text_capped

#: Largest config file read (published configs are 0.5-10 KB; Kimi-K2.5's full dump is 9.5 KB).
MAX_CONFIG_BYTES = 4 * 1024 * 1024
_MISSING = object()


def _bad(message: str) -> InferSimError:
    return InferSimError(f"malformed config.json: {message}")


def read_text(source) -> str:
    """The text of ``source``: a path (file only, at most :data:`MAX_CONFIG_BYTES`, UTF-8),
    JSON text, or bytes."""
    if isinstance(source, (bytes, bytearray)):
        return decode_capped(bytes(source[:MAX_CONFIG_BYTES + 1]), MAX_CONFIG_BYTES, "config bytes", "config.json")
    if isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        return source
    if not isinstance(source, (str, os.PathLike)) or not os.path.exists(source):
        raise InferSimError(f"config.json not found: {source!s}")
    if os.path.isdir(source):
        raise InferSimError(f"config path {source!s} is a directory; give the config.json file inside it")
    return read_text_capped(source, MAX_CONFIG_BYTES, "config.json")


def _finite_pairs(pairs: list[tuple[str, Any]]) -> dict:
    """JSON object hook: reject NaN, Infinity and out-of-range numbers (1e400), naming the key."""
    for key, value in pairs:
        items = value if isinstance(value, list) else (value,)
        if any(isinstance(v, float) and not math.isfinite(v) for v in items):
            raise _bad(f"field '{key}' is not a finite number ({short_repr(value)})")
    return dict(pairs)


def parse(text: str) -> dict:
    """Parse JSON text into a dict with finite numbers only."""
    try:
        cfg = json.loads(text, object_pairs_hook=_finite_pairs)
    except json.JSONDecodeError as exc:
        raise _bad(f"{exc.msg} at line {exc.lineno}") from None
    except RecursionError:
        raise _bad("nested too deeply (a config.json is a few levels deep)") from None
    except InferSimError:  # a non-finite number, named by the object hook
        raise
    except ValueError:     # an integer literal past Python's int-parsing digit limit
        raise _bad("a number is too long") from None
    if not isinstance(cfg, dict):
        raise _bad("top level must be a JSON object")
    return cfg


def load(source) -> dict:
    """A parsed config from a path, JSON text, bytes or an already-parsed mapping."""
    if isinstance(source, Mapping):
        return dict(source)
    return parse(read_text(source))


# ----- typed access ---------------------------------------------------------------------------
def get_int(cfg: Mapping, keys: str | tuple[str, ...], *, default=_MISSING, lo: int = 1,
            hi: int | None = None) -> int:
    """The first present (non-null) key of ``keys`` as an integer in ``lo..hi``; integral floats
    (4096.0) are accepted, booleans, strings and non-finite numbers are not."""
    keys = (keys,) if isinstance(keys, str) else keys
    for k in keys:
        v = cfg.get(k)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (
                isinstance(v, float) and not (math.isfinite(v) and v.is_integer())):
            raise _bad(f"field '{k}' must be an integer, got {short_repr(v)}")
        v = int(v)
        if v < lo or (hi is not None and v > hi):
            bound = "> 0" if lo == 1 else f">= {lo}"
            raise _bad(f"field '{k}' must be {bound}" + (f" and <= {hi:,}" if hi is not None else "")
                       + f", got {v:,}")
        return v
    if default is _MISSING:
        raise _bad(f"missing field '{keys[0]}'")
    return default


def get_bool(cfg: Mapping, key: str, default: bool) -> bool:
    v = cfg.get(key)
    if v is None:
        return default
    if not isinstance(v, bool):
        raise _bad(f"field '{key}' must be true or false, got {short_repr(v)}")
    return v


def get_str(cfg: Mapping, key: str, default: str | None = None) -> str | None:
    v = cfg.get(key)
    if v is None:
        return default
    if not isinstance(v, str):
        raise _bad(f"field '{key}' must be a string, got {type(v).__name__}")
    return v


def get_list(cfg: Mapping, key: str, length: int | None = None) -> list | None:
    """A JSON list (or None when absent/null); ``length`` checks it has one entry per layer."""
    v = cfg.get(key)
    if v is None:
        return None
    if not isinstance(v, list):
        raise _bad(f"field '{key}' must be a list, got {type(v).__name__}")
    if length is not None and v and len(v) != length:
        raise _bad(f"field '{key}' has {len(v)} entries; it needs one per layer ({length})")
    return v


def get_dict(cfg: Mapping, key: str) -> dict | None:
    v = cfg.get(key)
    if v is None:
        return None
    if not isinstance(v, dict):
        raise _bad(f"field '{key}' must be a JSON object, got {type(v).__name__}")
    return v
