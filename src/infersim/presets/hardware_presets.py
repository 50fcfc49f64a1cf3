"""Hardware presets, shipped as data files ``presets/hardware/*.toml`` (one per system, each with
its ``source``), plus the calibration of the GPU families.

Bandwidths are per PE per direction (NVLink 4 "900 GB/s" is 450 GB/s each way), TFLOPS are dense
(no 2:4 sparsity). A preset file holds flat :class:`~infersim.specs.hardware.HardwareSpec` keys (the
schema of docs/hardware.md) and:

* ``eff_max_compute``, ``eff_max_compute_fp8``, ``eff_max_compute_fp4``, ``eff_max_memory``,
  ``eff_max_memory_fp8``: the maxima a part reaches in published measurements (large bf16 / fp8
  / fp4 GEMMs, HBM streaming, GEMMs streaming 8-bit weights), as fractions of datasheet peak;
  the efficiency tables are a generic size shape scaled to them (:func:`curves`);
* ``part``: the group of parts sharing those maxima (:data:`MEASURED_MAX`);
* ``family``: the GPU family whose fitted multipliers (:func:`family_calibration`, fitted by
  ``infersim validate --refit``) scale the maxima within ``EFF_BOUNDS``; without one a preset
  keeps its measured maxima, so comparisons between vendors measure hardware, not fitting history;
* ``base``: another preset this one repeats with a few keys changed (multi-node variants).

Software overheads are in :mod:`infersim.specs.runtime`, never here. Link latencies (alpha): one
synchronised hop of a collective. NVLink 4/NVSwitch ~2 us (TensorRT-LLM's one-shot all-reduce on
8 H100: 3.2 us at 256 B, 3.5 us at 8 KB, including the launch gap); NVLink 3 on A100 ~5 us (8.0 us
at 8 KB); InfiniBand NDR ~10 us per inter-node hop (NCCL 2-node small all-reduce ~25-46 us).
Kernel latency (the least device time of any kernel): smallest bf16 GEMM 2.5 us on A100/H100/H200,
1.7 us on B200 (same aiconfigurator sweeps).
"""
from __future__ import annotations

import os
from importlib import resources

from infersim.errors import InferSimError
from infersim.loaders.files import decode_capped
from infersim.loaders.hardware_files import (
    MAX_HW_FILE_BYTES,
    SUFFIXES,
    _parse,
    read_mapping,
    spec_from_mapping,
)
from infersim.presets.calibration import group
from infersim.specs.efficiency import calibrate
from infersim.specs.hardware import FAMILIES as SPEC_FAMILIES
from infersim.specs.hardware import HardwareSpec
from infersim.specs.registry import Registry

#: GPU families (``family`` in hardware files); calibrated where ``calibration.toml`` has a
#: ``hardware.<family>`` group (hopper, ampere, cdna3, blackwell), the others keep their maxima.
FAMILIES = SPEC_FAMILIES


def family_calibration(family: str) -> dict[str, float]:
    """The fitted values of a family: efficiency multipliers by kind (``compute``, ``memory_fp8``,
    ``attn_memory``, ...) and absolute physics values (``ridge_overlap``, ``kernel_latency_ns``)."""
    return group("hardware", family)


def _read_preset_files() -> dict[str, dict]:
    """name → the file's keys, ``base`` resolved (a variant inherits its base's keys), in
    file-name order."""
    folder = resources.files("infersim") / "presets" / "hardware"
    raw: dict[str, dict] = {}
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".toml"):
            d = _parse(entry.read_text(encoding="utf-8"), ".toml", f"presets/hardware/{entry.name}")
            if d.get("name") in raw:
                raise InferSimError(f"duplicate hardware preset {d.get('name')!r} in {entry.name}")
            raw[d.get("name")] = d

    def resolved(name: str, seen: tuple = ()) -> dict:
        d = raw[name]
        base = d.get("base")
        if base is None:
            return dict(d)
        if base not in raw or base in seen:
            raise InferSimError(f"hardware preset {name!r}: base {base!r} is not a preset (or a cycle)")
        merged = {**resolved(base, seen + (name,)), **d}
        del merged["base"]
        return merged
    return {name: resolved(name) for name in raw}


def _resolver(by_part: dict[str, HardwareSpec], by_family: dict[str, HardwareSpec]):
    """``defaults(part, family)`` for :func:`spec_from_mapping`: the reference spec of a part
    (the first preset naming it) or else of a family (its first preset), with a label."""
    def defaults(part: str | None, family: str | None):
        if part is not None:
            if part not in by_part:
                raise InferSimError(f"unknown part {part!r}; valid: {', '.join(by_part)}")
            ref = by_part[part]
            return ref, f"part '{part}' ({ref.name})"
        ref = by_family.get(family) if family else None
        return (ref, f"family '{family}' ({ref.name})") if ref is not None else None
    return defaults


def _build() -> tuple[list[HardwareSpec], dict[str, str], dict[str, str]]:
    """(uncalibrated specs, name → part, part → its reference preset). A preset that omits the
    efficiency fields gets those of the first preset of its part, else of its family
    (:data:`~infersim.loaders.hardware_files.KIND_DEFAULTS`), uncalibrated: the family's
    calibration then scales both alike."""
    specs, parts = [], {}
    by_part: dict[str, HardwareSpec] = {}
    by_family: dict[str, HardwareSpec] = {}
    for name, d in _read_preset_files().items():
        part = d.get("part")
        own = {k: v for k, v in d.items() if not (k == "part" and part not in by_part)}
        spec, _ = spec_from_mapping(own, f"hardware preset {name!r}", defaults=_resolver(by_part, by_family))
        specs.append(spec)
        if part:
            parts[name] = part
            by_part.setdefault(part, spec)
        if spec.family:
            by_family.setdefault(spec.family, spec)
    return specs, parts, {p: s.name for p, s in by_part.items()}


def _maxima(h: HardwareSpec) -> tuple[float, ...]:
    """(bf16 GEMM, fp8 GEMM, HBM stream, 8-bit-weight GEMV) maxima of a spec's tables."""
    return tuple(max((e for _, e in getattr(h, t)), default=float("nan"))
                 for t in ("compute_eff", "compute_eff_fp8", "memory_eff", "memory_eff_fp8"))


_RAW, _PART, PART_PRESET = _build()
_FAMILY = {h.name: h.family for h in _RAW if h.family}
MEASURED_MAX = {}
for _h in _RAW:
    if _h.name in _PART and MEASURED_MAX.setdefault(_PART[_h.name], _maxima(_h)) != _maxima(_h):
        raise InferSimError(f"hardware preset {_h.name!r}: part {_PART[_h.name]!r} maxima differ between files")
#: Measured maxima per part, as fractions of datasheet peak: (bf16 GEMM, fp8 GEMM, HBM stream,
#: HBM of GEMMs streaming 8-bit weights at small batch). Sources: each preset file's comments
#: (aiconfigurator's NVIDIA-collected GEMM sweeps, github.com/ai-dynamo/aiconfigurator @095f58a,
#: Azure AI-benchmarking-guide STREAM results).
MEASURED_MAX: dict[str, tuple[float, ...]]
#: family → the preset names calibrated with it, in file order.
FAMILY_PRESETS: dict[str, tuple[str, ...]] = {
    fam: tuple(n for n, f in _FAMILY.items() if f == fam) for fam in FAMILIES}
_BY_NAME = {h.name: h for h in _RAW}
#: Uncalibrated specs (measured maxima) that ``infersim.validation.validate`` fits against, per family.
BASE_GPU_SPECS: dict[str, HardwareSpec] = {fam: _BY_NAME[names[0]] for fam, names in FAMILY_PRESETS.items()
                                           if names}
#: Uncalibrated presets by name: the measured maxima the fit starts from.
RAW_PRESETS: dict[str, HardwareSpec] = _BY_NAME
GENERIC_SIP: HardwareSpec = _BY_NAME["Generic SiP (default)"]
DEFAULT_HW = GENERIC_SIP.name


#: Every preset, calibrated where its family is (dict-like: ``HW_PRESETS[name]``, iteration in
#: file order, one-line errors naming the valid choices).
HW_PRESETS: Registry[HardwareSpec] = Registry("hardware preset")
for _h in _RAW:
    HW_PRESETS.register(_h.name, calibrate(_h, **family_calibration(_h.family)) if _h.family else _h)


#: What a user file naming a ``part`` or ``family`` gets for the efficiency fields it omits: the
#: calibrated reference preset's, exactly as ``--hw <preset>`` runs them (a file that states its
#: own maxima keeps them uncalibrated).
USER_DEFAULTS = _resolver({p: HW_PRESETS[n] for p, n in PART_PRESET.items()},
                          {f: HW_PRESETS[names[0]] for f, names in FAMILY_PRESETS.items() if names})


def get_hardware(name: str) -> HardwareSpec:
    """The preset called ``name``, or a one-line error listing the valid names."""
    return HW_PRESETS.get(name)


def is_hardware_file(ref: str) -> bool:
    """Whether ``ref`` names a hardware file rather than a preset (by its suffix or existence)."""
    return ref not in HW_PRESETS and (ref.lower().endswith((".json", ".toml", ".yaml", ".yml"))
                                      or os.path.sep in ref or os.path.exists(ref))


def read_hardware_file(path: str | os.PathLike) -> tuple[HardwareSpec, dict[str, str]]:
    """(spec, provenance) of a user hardware file (JSON, TOML or YAML; docs/hardware.md);
    ``base`` names a calibrated preset whose fields the file overrides; ``family`` / ``part``
    give the omitted efficiency fields of that kind's preset (:data:`USER_DEFAULTS`)."""
    return spec_from_mapping(read_mapping(path), os.path.basename(str(path)), resolve_base=get_hardware,
                             defaults=USER_DEFAULTS)


def spec_from_text(data: bytes | str, filename: str) -> HardwareSpec:
    """A spec from the *content* of a hardware file (a UI upload): never treated as a path.
    ``filename`` only picks the format by its suffix and names the file in errors; ``base``
    may name a preset, nothing else is looked up. At most :data:`MAX_HW_FILE_BYTES`."""
    where = os.path.basename(str(filename)) or "hardware file"
    suffix = os.path.splitext(where)[1].lower()
    if suffix not in SUFFIXES:
        raise InferSimError(f"{where}: hardware files end in {', '.join(SUFFIXES)}")
    raw = data.encode("utf-8", errors="replace") if isinstance(data, str) else bytes(data)
    text = decode_capped(raw, MAX_HW_FILE_BYTES, where, "hardware file")
    return spec_from_mapping(_parse(text.removeprefix("\ufeff"), suffix, where), where,
                             resolve_base=get_hardware, defaults=USER_DEFAULTS)[0]


def resolve_hardware(ref: str) -> HardwareSpec:
    """A preset name or a path to a JSON/TOML/YAML hardware file (docs/hardware.md)."""
    if is_hardware_file(ref):
        return read_hardware_file(ref)[0]
    try:
        return get_hardware(ref)
    except InferSimError as exc:
        raise InferSimError(f"{exc} (or a .toml/.json/.yaml hardware file)") from None


def as_hardware(hw) -> HardwareSpec:
    """A HardwareSpec from a spec or a preset name / hardware file path (one-line error else)."""
    if isinstance(hw, HardwareSpec):
        return hw
    if isinstance(hw, str):
        return resolve_hardware(hw)
    raise InferSimError(f"hardware must be a HardwareSpec or a hardware preset name, got {type(hw).__name__}")


__all__ = ["as_hardware", "FAMILIES", "PART_PRESET", "USER_DEFAULTS", "family_calibration", "RAW_PRESETS", "MEASURED_MAX", "FAMILY_PRESETS", "BASE_GPU_SPECS", "GENERIC_SIP", "DEFAULT_HW",
           "HW_PRESETS", "get_hardware", "is_hardware_file", "read_hardware_file", "spec_from_text",
           "resolve_hardware"]
