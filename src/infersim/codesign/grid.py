"""Candidate grids: the depths' multiplier grids and validated custom grids, as flat arrays.

A grid is one value list (axis) per knob: the six per-PE knobs (:data:`~infersim.hardware.KNOBS`)
and, in custom grids, the system-size knobs (:data:`TOPOLOGY_KNOBS`). Candidates are the
Cartesian product in ``itertools.product`` order (first knob slowest). Sweeps generate the rows
of a range of candidates from the axes when they need them (:func:`rows_at`: ``knob_rows``
(n, 6) floats, ``topo_rows`` (n, 3) ints), never the whole grid nor one object per candidate.
"""
from __future__ import annotations

import math
import numbers
from typing import Mapping, Sequence

import numpy as np

from ..errors import InferSimError, choice, require
from ..hardware import KNOBS
from .types import TOPOLOGY_KNOBS

DEPTHS = ("two_stage", "balanced", "coarse", "custom")
_MULTIPLIERS = {"two_stage": (1.0,), "balanced": (1.0, 2.0), "coarse": (0.5, 1.0, 2.0)}
#: Default cap on hardware candidates (~10 s and ~150 MB at keep="best"); ``max_candidates``
#: (CLI ``--max-candidates``) overrides it explicitly.
MAX_CANDIDATES = 250_000
GRID_KNOBS = KNOBS + TOPOLOGY_KNOBS


def _value(knob: str, v) -> float | int:
    """One validated grid value: a positive finite number (an integer >= 1 for system size)."""
    ok = isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and math.isfinite(v) and v > 0
    if knob in TOPOLOGY_KNOBS:
        require(ok and float(v).is_integer(), f"{knob} values must be integers >= 1, got {v!r}")
        return int(v)
    require(ok, f"{knob} values must be positive numbers, got {v!r}")
    return float(v)


def _custom_axes(custom, base: Mapping[str, float], base_topo: Sequence[int]) -> list[list]:
    require(custom is not None and len(custom) > 0,
            f"depth 'custom' needs a grid: a value list for some of {', '.join(GRID_KNOBS)}")
    require(isinstance(custom, Mapping), f"custom grid must map knob names to value lists, got {custom!r}")
    unknown = set(custom) - set(GRID_KNOBS)
    require(not unknown, f"unknown knobs {sorted(map(str, unknown))}; valid: {', '.join(GRID_KNOBS)}")
    defaults = {**base, **dict(zip(TOPOLOGY_KNOBS, base_topo))}
    axes = []
    for k in GRID_KNOBS:
        vals = custom.get(k, [defaults[k]])
        if isinstance(vals, (str, bytes)) or not isinstance(vals, (Sequence, np.ndarray)):
            raise InferSimError(f"custom grid values for {k} must be a list of numbers, got {vals!r}")
        vals = list(vals)
        require(len(vals) > 0, f"empty value list for {k}: the sweep would have no candidates")
        axes.append(sorted({_value(k, v) for v in vals}))
    return axes


def grid_axes(depth: str, custom, base: Mapping[str, float], base_topo: Sequence[int]) -> list[list]:
    """The value list of every knob in :data:`GRID_KNOBS` order (system size: the base's
    unless a custom grid varies it)."""
    choice("depth", depth, DEPTHS)
    if depth == "custom":
        return _custom_axes(custom, base, base_topo)
    require(custom is None, "a custom grid needs depth='custom'")
    return ([[m * base[k] for m in _MULTIPLIERS[depth]] for k in KNOBS]
            + [[int(v)] for v in base_topo])


def grid_size(axes: list[list]) -> int:
    return math.prod(len(a) for a in axes)


def check_cap(n: int, max_candidates) -> None:
    """Refuse grids above the cap unless it is raised explicitly."""
    cap = MAX_CANDIDATES if max_candidates is None else max_candidates
    require(isinstance(cap, (int, np.integer)) and not isinstance(cap, bool) and cap >= 1,
            f"max_candidates must be an integer >= 1, got {max_candidates!r}")
    require(n <= cap, f"the grid has {n:,} hardware candidates, above the cap of {cap:,}; "
                      f"pass max_candidates={n} (CLI --max-candidates {n}) to run it anyway")


def rows_at(axes: list[list], idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(knob_rows (len(idx), 6) float64, topo_rows (len(idx), 3) int64) of the candidates at
    positions ``idx`` of the ``itertools.product`` order, without building the whole grid."""
    idx = np.asarray(idx, dtype=np.int64)
    knob_rows = np.empty((len(idx), len(KNOBS)))
    topo_rows = np.empty((len(idx), len(TOPOLOGY_KNOBS)), dtype=np.int64)
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
