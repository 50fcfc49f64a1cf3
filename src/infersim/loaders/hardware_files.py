"""Hardware files: a :class:`~infersim.specs.hardware.HardwareSpec` written as JSON, TOML or YAML.

Schema (docs/hardware.md): every HardwareSpec field by name, flat, plus

* ``base = "<preset name>"``: start from that (calibrated) preset; the file's keys override it;
* ``eff_max_compute``, ``eff_max_compute_fp8``, ``eff_max_compute_fp4``, ``eff_max_memory``,
  ``eff_max_memory_fp8``: a measured maximum (fraction of peak) that becomes that efficiency
  table through the generic size shape (:mod:`infersim.specs.efficiency`), instead of the table;
* tables (``compute_eff``, ...) as lists of ``[size, efficiency]`` pairs;
* ``family = "<family>"`` (a HardwareSpec field) or ``part = "<part>"`` (a part the presets
  know, e.g. "H100"): the fields the file leaves out of :data:`KIND_DEFAULTS` (efficiency tables,
  kernel latency, ridge overlap) come from that family's / part's reference preset, as the
  ``defaults`` resolver the caller passes returns it (:mod:`infersim.presets.hardware_presets`),
  instead of the generic curves.

``source`` (where the numbers come from) is expected: a file without one, or with the presets'
``part`` key (a copy of a shipped preset), loads with a one-line warning. Every mistake is a one-line
:class:`~infersim.errors.InferSimError` naming the file and the field; a misspelled key gets the
nearest valid one suggested. Files are at most :data:`MAX_HW_FILE_BYTES`.
"""
from __future__ import annotations

import json
import os
from typing import Any, Callable, Mapping

from infersim.errors import InferSimError, printable, short_repr, warn
from infersim.loaders.files import read_text_capped
from infersim.specs.efficiency import MAX_KEYS, _scale, shape_of
from infersim.specs.hardware import (
    EFF_TABLES,
    HardwareSpec,
    check_keys,
    field_names,
    required_fields,
    table_from,
)

MAX_HW_FILE_BYTES = 1024 * 1024
SUFFIXES = (".json", ".toml", ".yaml", ".yml")
EXTRA_KEYS = ("base", "part") + tuple(MAX_KEYS)
#: Fields a file naming a ``family`` or ``part`` gets from its reference spec when it omits them:
#: what the engines and kernels of that kind of part reach, not what the part is.
KIND_DEFAULTS = EFF_TABLES + ("kernel_latency_ns", "gemm_ramp_ns", "ridge_overlap")
#: ``defaults(part, family)`` → (reference spec, label) or None: where a file's omitted
#: :data:`KIND_DEFAULTS` come from; raises InferSimError for an unknown part.
DefaultsResolver = Callable[[str | None, str | None], "tuple[HardwareSpec, str] | None"]


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
            d = _safe_yaml(text, where)
    except InferSimError:
        raise
    except RecursionError:
        raise InferSimError(f"{where}: nested too deeply") from None
    except Exception as exc:     # each parser has its own error type; all mean a syntax error
        msg = " ".join(str(exc).split())[:160]
        raise InferSimError(f"{where}: cannot parse {suffix[1:].upper()}: {msg}") from None
    if not isinstance(d, dict):
        raise InferSimError(f"{where}: top level must be a table of hardware fields")
    return d


def _safe_yaml(text: str, where: str):
    """``yaml.safe_load`` without aliases: a 1 KB file of nested anchors (a "billion laughs"
    bomb) expands to gigabytes once anything walks it, and a hardware file never needs one."""
    import yaml

    class _NoAliases(yaml.SafeLoader):
        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                raise InferSimError(f"{where}: YAML aliases (*name) are not allowed in a hardware file")
            return super().compose_node(parent, index)

    return yaml.load(text, Loader=_NoAliases)   # noqa: S506 (a SafeLoader subclass)


def clean_strings(d: Mapping) -> dict:
    """The file's top-level string values with control characters removed (a name with an ESC
    sequence would repaint the terminal it is printed on)."""
    return {k: printable(v).strip() if isinstance(v, str) else v for k, v in d.items()}


def _tables_from_maxima(d: Mapping, where: str) -> dict:
    out = {}
    for key, table in MAX_KEYS.items():
        if key not in d:
            continue
        if table in d:
            raise InferSimError(f"{where}: give {key} or the {table} table, not both")
        v = d[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
            raise InferSimError(f"{where}: {key} must be a fraction of peak in (0, 1], got {short_repr(v)}")
        out[table] = _scale(shape_of(table), float(v))
    return out


def _kind_defaults(d: Mapping, where: str, kw: dict, origin: dict, defaults: DefaultsResolver | None) -> None:
    """Fill the :data:`KIND_DEFAULTS` fields a file omits (neither given, derived from an
    ``eff_max_*`` nor inherited from ``base``) from the reference spec of its ``part`` or
    ``family``; a ``part`` also gives its family when the file names none."""
    part, family = d.get("part"), kw.get("family")
    if part is not None and not (isinstance(part, str) and part):
        raise InferSimError(f"{where}: part must be the name of a part the presets know, got {part!r}")
    if family is not None and not isinstance(family, str):
        raise InferSimError(f"{where}: family must be a string, got {family!r}")
    if defaults is None or (part is None and not family):
        return
    try:
        found = defaults(part, family or None)
    except InferSimError as exc:
        raise InferSimError(f"{where}: {exc}") from None
    if found is None:
        return
    ref, label = found
    if "family" not in kw and ref.family:
        kw["family"], origin["family"] = ref.family, f"{label} default"
    for f in KIND_DEFAULTS:
        if f not in kw:
            kw[f], origin[f] = getattr(ref, f), f"{label} default"


def spec_from_mapping(d: Mapping, where: str, resolve_base: Callable[[str], HardwareSpec] | None = None,
                      require_source: bool = True, defaults: DefaultsResolver | None = None
                      ) -> tuple[HardwareSpec, dict[str, str]]:
    """(spec, provenance) from a file's keys; provenance says for each field whether it came from
    the file, an ``eff_max_*`` maximum, the ``base`` preset, the ``family`` / ``part`` defaults
    (``defaults``, see :data:`DefaultsResolver`) or the HardwareSpec default. A user file
    (``require_source``) may lack ``source``: it loads with one warning saying so."""
    if not isinstance(d, Mapping):
        raise InferSimError(f"{where}: expected a table of hardware fields, got {type(d).__name__}")
    known = set(field_names()) | set(EXTRA_KEYS)
    if d and not any(isinstance(k, str) and k in known for k in d):
        # never echo a key of a file that is not a hardware file (--hw /etc/shadow)
        raise InferSimError(f"{where} does not look like a hardware file: none of its {len(d)} keys "
                            "is a hardware field (docs/hardware.md)")
    d = clean_strings(d)
    notes = []
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
    if base_name is None:
        _kind_defaults(d, where, kw, origin, defaults)
    missing = [f for f in required_fields() if f not in kw]
    if missing:
        raise InferSimError(f"{where}: missing hardware field '{missing[0]}' "
                            f"(required: {', '.join(required_fields())}; or give base = \"<preset>\")")
    # the file itself should say where its numbers come from (a base preset's source is not enough)
    if require_source and not (isinstance(d.get("source"), str) and d["source"]):
        notes.insert(0, "no 'source': say where the numbers come from (datasheet link, measurement, "
                        "or 'hypothetical')")
        kw["source"] = "(not given)"
        origin["source"] = "default"
    try:
        spec = HardwareSpec(**kw)
    except InferSimError as exc:
        raise InferSimError(f"{where}: {exc}") from None
    if notes:
        warn(f"{where}: " + "; ".join(notes), stacklevel=2)
    for f in field_names():
        origin.setdefault(f, "default")
    return spec, origin
