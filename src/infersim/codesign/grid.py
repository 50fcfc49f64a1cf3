"""Candidate grids: the depths' multiplier grids and validated custom grids, as flat arrays.

A grid is one value list (axis) per knob: the six per-PE knobs (:data:`~infersim.specs.hardware.KNOBS`)
and, in custom grids, the system-size knobs (:data:`TOPOLOGY_KNOBS`). Candidates are the
Cartesian product in ``itertools.product`` order (first knob slowest). Sweeps generate the rows
of a range of candidates from the axes when they need them (:func:`rows_at`: ``knob_rows``
(n, 6) floats, ``topo_rows`` (n, 3) ints), never the whole grid nor one object per candidate.
"""
from __future__ import annotations

import math
import numbers
import re
from typing import Mapping, Sequence

import numpy as np

from infersim.codesign.types import SYSTEM_KNOBS, TIER_KNOBS, TOPOLOGY_KNOBS
from infersim.errors import InferSimError, choice, require, short_repr
from infersim.specs.hardware import KNOB_RANGE, KNOBS, MAX_PES

DEPTHS = ("two_stage", "balanced", "coarse", "custom")
_MULTIPLIERS = {"two_stage": (1.0,), "balanced": (1.0, 2.0), "coarse": (0.5, 1.0, 2.0)}
#: Default cap on hardware candidates (~10 s and ~150 MB at keep="best"); ``max_candidates``
#: (CLI ``--max-candidates``) overrides it explicitly.
MAX_CANDIDATES = 250_000
#: Most candidates any sweep accepts, even when asked (~600 MB and minutes at keep="best"):
#: ``max_candidates`` raises the default cap up to here, never past it.
MAX_CANDIDATES_LIMIT = 1_000_000
#: The SLA co-design runs one serving search per candidate (~0.1-0.3 s each): its default cap
#: (the UI's) and the most it accepts when asked.
MAX_SLA_CANDIDATES = 1_000
MAX_SLA_CANDIDATES_LIMIT = 10_000
#: Most distinct system sizes (pes_per_cube x cubes_per_sip x n_sips) in one grid: each builds
#: its own parallelism space, so ``n_sips=1..300`` would build 300 of them.
MAX_TOPOLOGIES = 64
GRID_KNOBS = KNOBS + SYSTEM_KNOBS


def _value(knob: str, v) -> float | int:
    """One validated grid value: a positive finite number (an integer >= 1 for system size)."""
    ok = isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and math.isfinite(v) and v > 0
    if knob in TOPOLOGY_KNOBS:
        require(ok and float(v).is_integer() and v <= MAX_PES,
                f"{knob} values must be integers in 1..{MAX_PES:,}, got {short_repr(v)}")
        return int(v)
    if knob in TIER_KNOBS:          # a memory tier of 0 GB is "none"
        ok0 = isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and math.isfinite(v) and v >= 0
        require(ok0 and float(v).is_integer(), f"{knob} values must be integers >= 0, got {v!r}")
        return int(v)
    lo, hi = KNOB_RANGE
    require(ok and lo <= v <= hi, f"{knob} values must be numbers in {lo:g}..{hi:g}, got {short_repr(v)}")
    return float(v)


def _custom_axes(custom, base: Mapping[str, float], base_topo: Sequence[int]) -> list[list]:
    require(custom is not None and len(custom) > 0,
            f"depth 'custom' needs a grid: a value list for some of {', '.join(GRID_KNOBS)}")
    require(isinstance(custom, Mapping), f"custom grid must map knob names to value lists, got {short_repr(custom)}")
    unknown = set(custom) - set(GRID_KNOBS)
    require(not unknown, f"unknown knobs {sorted(map(str, unknown))}; valid: {', '.join(GRID_KNOBS)}")
    defaults = {**base, **dict(zip(SYSTEM_KNOBS, _system(base_topo)))}
    axes = []
    for k in GRID_KNOBS:
        vals = custom.get(k, [defaults[k]])
        if isinstance(vals, (str, bytes)) or not isinstance(vals, (Sequence, np.ndarray)):
            raise InferSimError(f"custom grid values for {k} must be a list of numbers, got {short_repr(vals)}")
        vals = list(vals)
        require(len(vals) > 0, f"empty value list for {k}: the sweep would have no candidates")
        require(len(vals) <= 10_000, f"{len(vals):,} values for {k}: at most 10,000 per knob")
        axes.append(sorted({_value(k, v) for v in vals}))
    check_topologies(axes)
    cap, bw = axes[GRID_KNOBS.index("unified_mem_gb")], axes[GRID_KNOBS.index("bw_unified_gbs")]
    require(max(cap) == 0 or min(bw) > 0,
            "a memory tier (unified_mem_gb > 0) needs bw_unified_gbs > 0: say how fast the PE reaches it")
    return axes


def _system(base_topo: Sequence) -> tuple[int, ...]:
    """The base's system axes; a topology without the tier has none (0 GB at 0 GB/s)."""
    return tuple(int(v) for v in base_topo) + (0,) * (len(SYSTEM_KNOBS) - len(base_topo))


def grid_axes(depth: str, custom, base: Mapping[str, float], base_topo: Sequence[int]) -> list[list]:
    """The value list of every knob in :data:`GRID_KNOBS` order (system size: the base's
    unless a custom grid varies it)."""
    choice("depth", depth, DEPTHS)
    if depth == "custom":
        return _custom_axes(custom, base, base_topo)
    require(custom is None, "a custom grid needs depth='custom'")
    return ([[m * base[k] for m in _MULTIPLIERS[depth]] for k in KNOBS]
            + [[v] for v in _system(base_topo)])


def grid_size(axes: list[list]) -> int:
    return math.prod(len(a) for a in axes)


def check_cap(n: int, max_candidates, default: int = MAX_CANDIDATES, limit: int = MAX_CANDIDATES_LIMIT,
              what: str = "a sweep") -> None:
    """Refuse grids above the cap (``default`` unless ``max_candidates`` raises it, never past
    ``limit``: a bounded time and memory whatever is asked)."""
    cap = default if max_candidates is None else max_candidates
    require(isinstance(cap, (int, np.integer)) and not isinstance(cap, bool) and 1 <= cap <= limit,
            f"max_candidates must be an integer in 1..{limit:,} (the most {what} runs), "
            f"got {short_repr(max_candidates)}")
    if n > limit:
        raise InferSimError(f"the grid has {n:,} hardware candidates, above the limit of {limit:,} for a "
                            f"{what}; narrow it: fewer values per knob (or a coarser depth)")
    require(n <= cap, f"the grid has {n:,} hardware candidates, above the cap of {cap:,}; "
                      f"pass max_candidates={n} (CLI --max-candidates {n}) to run it anyway")


def check_topologies(axes: list[list]) -> None:
    """Refuse more than :data:`MAX_TOPOLOGIES` system sizes in one grid."""
    n = math.prod(len(a) for a in axes[len(KNOBS):])
    require(n <= MAX_TOPOLOGIES, f"the grid has {n:,} system sizes (pes_per_cube x cubes_per_sip x n_sips), "
                                 f"above the limit of {MAX_TOPOLOGIES}: each builds its own parallelism "
                                 "space; give fewer system-size values")


def rows_at(axes: list[list], idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(knob_rows (len(idx), 6) float64, topo_rows (len(idx), 5) int64: ``SYSTEM_KNOBS``) at
    positions ``idx`` of the ``itertools.product`` order, without building the whole grid."""
    idx = np.asarray(idx, dtype=np.int64)
    knob_rows = np.empty((len(idx), len(KNOBS)))
    topo_rows = np.empty((len(idx), len(SYSTEM_KNOBS)), dtype=np.int64)
    stride = grid_size(axes)
    for j, a in enumerate(axes):          # axis j's index: (idx // stride_j) % len_j
        stride //= len(a)
        col = np.asarray(a)[(idx // stride) % len(a)]
        if j < len(KNOBS):
            knob_rows[:, j] = col
        else:
            topo_rows[:, j - len(KNOBS)] = col
    return knob_rows, topo_rows


def grid_rows(axes: list[list]) -> tuple[np.ndarray, np.ndarray]:
    """Every candidate's rows (see :func:`rows_at`)."""
    return rows_at(axes, np.arange(grid_size(axes)))


# "1,000" or "4,096": a 1-3 digit number, a comma, then three digits starting with 0 — nobody
# writes "000" or "096" as a grid value, so this is a thousands separator, not two values
_THOUSANDS = re.compile(r"(?<![\d.])\d{1,3},0\d\d(?![\d.])")


def parse_values(text: str, name: str, option: str = "--grid") -> list[float]:
    """Comma-separated numbers (``"1000, 2000,4e3"``); a thousands separator (``"1,000"``)
    would silently read as two values, so it is an error that says how to write the number."""
    m = _THOUSANDS.search(text)
    if m:
        raise InferSimError(f"bad {option} values for {name!r}: {m.group(0)!r} looks like a thousands "
                            f"separator, but commas separate values; write {m.group(0).replace(',', '')}")
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise InferSimError(f"bad {option} values for {name!r}: {short_repr(text)}") from None


def parse_grid(text: str | None, option: str = "--grid") -> dict[str, list[float]] | None:
    """``--grid "bw_hbm_gbs=2000,4000;peak_tflops_f16=500,1000"`` → {knob: [values]}; a knob
    named twice is an error (the second list would silently replace the first)."""
    if not text:
        return None
    grid: dict[str, list[float]] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        key, sep, vals = part.partition("=")
        key = key.strip()
        if not sep:
            raise InferSimError(f"bad {option} entry {short_repr(part)}; expected knob=v1,v2,...")
        if key in grid:
            raise InferSimError(f"{option} names {key} twice; give each knob once, e.g. {key}=1,2,3")
        grid[key] = parse_values(vals, key, option)
    return grid
