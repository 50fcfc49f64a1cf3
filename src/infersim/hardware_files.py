"""Hardware files: a :class:`~infersim.hardware.HardwareSpec` written as JSON, TOML or YAML.

Schema (docs/hardware.md): every HardwareSpec field by name, flat, plus

* ``base = "<preset name>"``: start from that (calibrated) preset; the file's keys override it;
* ``eff_max_compute``, ``eff_max_compute_fp8``, ``eff_max_compute_fp4``, ``eff_max_memory``,
  ``eff_max_memory_fp8``: a measured maximum (fraction of peak) that becomes that efficiency
  table through the generic size shape (:mod:`infersim.efficiency`), instead of the table;
* tables (``compute_eff``, ...) as lists of ``[size, efficiency]`` pairs.

``source`` (where the numbers come from) is required. Every mistake is a one-line
:class:`~infersim.errors.InferSimError` naming the file and the field; a misspelled key gets the
nearest valid one suggested. Files are at most :data:`MAX_HW_FILE_BYTES`.
"""
from __future__ import annotations

import difflib
import json
import math
import os
from dataclasses import MISSING, fields
from typing import Any, Callable, Mapping

from .efficiency import COMPUTE_SHAPE, MAX_KEYS, MEMORY_SHAPE, _scale
from .errors import InferSimError
from .files import read_text_capped
from .hardware import EFF_TABLES, HardwareSpec

MAX_HW_FILE_BYTES = 1024 * 1024
SUFFIXES = (".json", ".toml", ".yaml", ".yml")
EXTRA_KEYS = ("base",) + tuple(MAX_KEYS)


def field_names() -> list[str]:
    return [f.name for f in fields(HardwareSpec)]


def required_fields() -> list[str]:
    return [f.name for f in fields(HardwareSpec) if f.default is MISSING and f.default_factory is MISSING]


def check_keys(d: Any, where: str, extra: tuple[str, ...] = ()) -> None:
    """Reject a non-mapping or unknown keys, suggesting the nearest valid key."""
    if not isinstance(d, Mapping):
        raise InferSimError(f"{where}: expected a table of hardware fields, got {type(d).__name__}")
    valid = field_names() + list(extra)
    if "usable_mem_frac" in d:
        raise InferSimError(f"{where}: usable_mem_frac is a property of the software, not the chip: "
                            "it is the runtime's mem_fraction now (infersim.runtime); drop the key")
    for key in d:
        if key not in valid:
            near = difflib.get_close_matches(str(key), valid, n=1, cutoff=0.6)
            hint = f"did you mean '{near[0]}'? " if near else ""
            raise InferSimError(f"{where}: unknown hardware field '{key}'; {hint}valid: {', '.join(valid)}")


def table_from(name: str, value: Any) -> tuple[tuple[float, float], ...]:
    """An efficiency table from a list of [size, efficiency] pairs (numbers, finite)."""
    ok = isinstance(value, (list, tuple)) and all(
        isinstance(p, (list, tuple)) and len(p) == 2
        and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in p)
        for p in value)
    if not ok:
        raise InferSimError(f"{name} must be a list of [size, efficiency] number pairs, got {value!r}"[:200])
    return tuple((float(x), float(e)) for x, e in value)


def read_mapping(path: str | os.PathLike) -> dict:
    """The parsed contents of a .json / .toml / .yaml(.yml) file (at most 1 MiB, UTF-8)."""
    where = str(path)
    suffix = os.path.splitext(where)[1].lower()
    if suffix not in SUFFIXES:
        raise InferSimError(f"{where}: hardware files end in {', '.join(SUFFIXES)}")
    if not os.path.exists(path):
        raise InferSimError(f"hardware file not found: {where}")
    if not os.path.isfile(path):
        raise InferSimError(f"{where} is not a regular file")
    text = read_text_capped(path, MAX_HW_FILE_BYTES, "hardware file")
    return _parse(text, suffix, where)


def _parse(text: str, suffix: str, where: str) -> dict:
    try:
        if suffix == ".json":
            d = json.loads(text)
        elif suffix == ".toml":
            import tomllib
            d = tomllib.loads(text)
        else:
            import yaml
            d = yaml.safe_load(text)
    except RecursionError:
        raise InferSimError(f"{where}: nested too deeply") from None
    except Exception as exc:     # each parser has its own error type; all mean a syntax error
        msg = " ".join(str(exc).split())[:160]
        raise InferSimError(f"{where}: cannot parse {suffix[1:].upper()}: {msg}") from None
    if not isinstance(d, dict):
        raise InferSimError(f"{where}: top level must be a table of hardware fields")
    return d


def _tables_from_maxima(d: Mapping, where: str) -> dict:
    out = {}
    for key, table in MAX_KEYS.items():
        if key not in d:
            continue
        if table in d:
            raise InferSimError(f"{where}: give {key} or the {table} table, not both")
        v = d[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
            raise InferSimError(f"{where}: {key} must be a fraction of peak in (0, 1], got {v!r}")
        out[table] = _scale(MEMORY_SHAPE if table.startswith("memory") else COMPUTE_SHAPE, float(v))
    return out


def spec_from_mapping(d: Mapping, where: str, resolve_base: Callable[[str], HardwareSpec] | None = None,
                      require_source: bool = True) -> tuple[HardwareSpec, dict[str, str]]:
    """(spec, provenance) from a file's keys; provenance says for each field whether it came from
    the file, an ``eff_max_*`` maximum, the ``base`` preset or the HardwareSpec default."""
    check_keys(d, where, EXTRA_KEYS)
    base_name = d.get("base")
    kw: dict[str, Any] = {}
    origin: dict[str, str] = {}
    if base_name is not None:
        if not isinstance(base_name, str) or resolve_base is None:
            raise InferSimError(f"{where}: base must be the name of a hardware preset")
        kw = resolve_base(base_name).to_dict()
        origin = {k: f"base '{base_name}'" for k in kw}
    derived = _tables_from_maxima(d, where)
    kw.update(derived)
    origin.update({t: f"from {k}" for k, t in MAX_KEYS.items() if k in d})
    for k, v in d.items():
        if k in EXTRA_KEYS:
            continue
        kw[k] = table_from(f"{where}: {k}", v) if k in EFF_TABLES else v
        origin[k] = "file"
    missing = [f for f in required_fields() if f not in kw]
    if missing:
        raise InferSimError(f"{where}: missing hardware field '{missing[0]}' "
                            f"(required: {', '.join(required_fields())}; or give base = \"<preset>\")")
    # the file itself must say where its numbers come from (a base preset's source is not enough)
    if require_source and not (isinstance(d.get("source"), str) and d["source"].strip()):
        raise InferSimError(f"{where}: missing 'source': say where the numbers come from "
                            "(datasheet link, measurement, or 'hypothetical')")
    try:
        spec = HardwareSpec(**kw)
    except InferSimError as exc:
        raise InferSimError(f"{where}: {exc}") from None
    for f in field_names():
        origin.setdefault(f, "default")
    return spec, origin


def spec_from_text(data: bytes | str, filename: str) -> HardwareSpec:
    """A spec from the *content* of a hardware file (a UI upload): never treated as a path.
    ``filename`` only picks the format by its suffix and names the file in errors; ``base``
    may name a preset, nothing else is looked up. At most :data:`MAX_HW_FILE_BYTES`."""
    from .files import decode_capped
    from .hardware_presets import get_hardware

    where = os.path.basename(str(filename)) or "hardware file"
    suffix = os.path.splitext(where)[1].lower()
    if suffix not in SUFFIXES:
        raise InferSimError(f"{where}: hardware files end in {', '.join(SUFFIXES)}")
    raw = data.encode("utf-8", errors="replace") if isinstance(data, str) else bytes(data)
    text = decode_capped(raw, MAX_HW_FILE_BYTES, where, "hardware file")
    return spec_from_mapping(_parse(text.removeprefix("\ufeff"), suffix, where), where,
                             resolve_base=get_hardware)[0]


def read_hardware_file(path: str | os.PathLike) -> tuple[HardwareSpec, dict[str, str]]:
    """(spec, provenance) of a user hardware file; ``base`` names a calibrated preset."""
    from .hardware_presets import get_hardware

    return spec_from_mapping(read_mapping(path), os.path.basename(str(path)), resolve_base=get_hardware)
