"""Sensitivity at a design point, elasticity, and "what it takes".

Every number here is the run's objective at a hardware whose parallelism is re-searched with
the same policy and objective as the sweep (the exact search of :mod:`.search`; the
``two_stage`` depth's policy is autosuggest):

* ``rel_speedup`` of a knob = the objective's gain when that knob alone is doubled
  (latency: baseline/doubled − 1; higher-is-better objectives: doubled/baseline − 1);
  ``rel_gain_halved`` the same for ×0.5 (negative: a loss).
* ``elasticity`` = d ln(goodness) / d ln(knob) as an arc between ×0.5 and ×2:
  ln(g(2x) / g(x/2)) / ln 4, with goodness g = value (or 1/latency). 1.0: the objective scales
  with the knob; 0: the knob does not matter. When ×0.5 does not fit, the arc is ×1 → ×2.
* "what it takes": for each knob alone, the smallest multiple of the design point's value
  that reaches a target (default: twice as good as the design point). Scanned at ×√2 … ×16 in
  √2 steps, then bisected three times in log space between the last miss and the first hit
  (4.4% resolution); None when ×16 does not reach it. The reported multiple is one that was
  costed and reaches the target.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

import numpy as np

from infersim.codesign.economics import Economics, pe_economics
from infersim.codesign.search import SweepContext, search_slice, topology_hw
from infersim.codesign.types import HardwareCandidate, candidate_rows
from infersim.errors import InferSimError
from infersim.search.autosuggest import autosuggest
from infersim.search.objectives import Objective, Perf, get_objective
from infersim.specs.hardware import KNOBS

SCAN = tuple(2 ** (j / 2) for j in range(1, 9))      # ×√2 … ×16
REFINE_STEPS = 3


@dataclass(frozen=True)
class SensitivityRow:
    knob: str
    baseline_latency_ns: float
    doubled_latency_ns: float
    rel_speedup: float
    objective: str = "latency"
    baseline_value: float = math.nan
    doubled_value: float = math.nan
    halved_value: float = math.nan
    halved_latency_ns: float = math.nan
    rel_gain_halved: float = math.nan
    elasticity: float = math.nan
    doubled_capex_usd_per_pe: float = math.nan   # capex per PE added by doubling the knob


@dataclass(frozen=True)
class Requirement:
    """What one knob alone must reach for the objective to reach ``target_value``."""

    knob: str
    objective: str
    target_value: float
    multiplier: float | None
    knob_value: float | None
    reached_value: float | None


def _picks_two_stage(ctx: SweepContext, knobs: np.ndarray, topo: np.ndarray):
    """(latency, period, pes) of autosuggest's pick per row (NaN where nothing fits)."""
    out = np.full((len(knobs), 3), np.nan)
    for i, (kr, tr) in enumerate(zip(knobs, topo)):
        hw = topology_hw(ctx.base_hw, tuple(int(x) for x in tr)).with_knobs(**dict(zip(KNOBS, kr)))
        try:
            s = autosuggest(ctx.model, hw, ctx.wl, ctx.runtime)
        except InferSimError:
            continue
        out[i] = s.result.total_latency_ns, s.result.period_ns, s.result.pes_used
    return out.T


def point_values(ctx: SweepContext, econ: Economics, cands: list[HardwareCandidate],
                 two_stage: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(objective value, latency) of each candidate's pick; NaN where nothing fits."""
    ctx = replace(ctx, keep="best", top_k=1)
    knobs, topo = candidate_rows(cands, ctx.base_hw)
    if two_stage:
        lat, per, pes = _picks_two_stage(ctx, knobs, topo)
    else:
        res = search_slice(ctx, knobs, topo)
        lat, per, pes = (np.full(len(cands), np.nan) for _ in range(3))
        lat[res.cand], per[res.cand], pes[res.cand] = res.latency_ns, res.period_ns, res.pes
    pe = pe_economics(knobs, topo, ctx.base_hw, econ)
    obj = get_objective(ctx.objective)
    return obj.value(Perf(lat, per, pes, ctx.wl.tokens, pe.usd_per_h, pe.system_w)), lat


def _elasticity(obj: Objective, v0: float, v2: float, vh: float) -> float:
    g0, g2, gh = (float(obj.goodness(v)) for v in (v0, v2, vh))
    if math.isfinite(gh) and gh > 0:
        return math.log(g2 / gh) / math.log(4.0)
    return math.log(g2 / g0) / math.log(2.0)


def sensitivity(ctx: SweepContext, econ: Economics, design: HardwareCandidate,
                two_stage: bool = False) -> tuple[list[SensitivityRow], float, float]:
    """Rows sorted by ``rel_speedup`` (desc), and the design point's (value, latency)."""
    obj = get_objective(ctx.objective)
    cands = [design] + [design.scaled(k, 2.0) for k in KNOBS] + [design.scaled(k, 0.5) for k in KNOBS]
    val, lat = point_values(ctx, econ, cands, two_stage)
    if not math.isfinite(val[0]):
        raise InferSimError(f"design point {design.knobs()} fits no parallelism of "
                            f"{ctx.model.name} for this workload")
    knobs, topo = candidate_rows(cands, ctx.base_hw)
    capex = pe_economics(knobs, topo, ctx.base_hw, econ).capex_usd
    rows = []
    for j, k in enumerate(KNOBS):
        i2, ih = 1 + j, 1 + len(KNOBS) + j
        v2 = val[i2] if math.isfinite(val[i2]) else val[0]
        l2 = lat[i2] if math.isfinite(lat[i2]) else lat[0]
        rows.append(SensitivityRow(
            knob=k, baseline_latency_ns=float(lat[0]), doubled_latency_ns=float(l2),
            rel_speedup=obj.gain(float(v2), float(val[0])), objective=obj.name,
            baseline_value=float(val[0]), doubled_value=float(v2), halved_value=float(val[ih]),
            halved_latency_ns=float(lat[ih]),
            rel_gain_halved=obj.gain(float(val[ih]), float(val[0])) if math.isfinite(val[ih]) else math.nan,
            elasticity=_elasticity(obj, val[0], v2, val[ih]),
            doubled_capex_usd_per_pe=float(capex[i2] - capex[0])))
    rows.sort(key=lambda r: -r.rel_speedup)
    return rows, float(val[0]), float(lat[0])


def _reaches(obj: Objective, values: np.ndarray, target: float) -> np.ndarray:
    s, t = obj.score(values), float(obj.score(target))
    return np.isfinite(values) & (s <= t + 1e-12 * abs(t))


def what_it_takes(ctx: SweepContext, econ: Economics, design: HardwareCandidate, design_value: float,
                  target: float, two_stage: bool = False) -> list[Requirement]:
    """For each knob alone, the smallest costed multiple reaching ``target`` (see module)."""
    obj = get_objective(ctx.objective)
    if _reaches(obj, np.array([design_value]), target)[0]:
        return [Requirement(k, obj.name, target, 1.0, getattr(design, k), design_value) for k in KNOBS]
    cands = [design.scaled(k, m) for k in KNOBS for m in SCAN]
    val, _ = point_values(ctx, econ, cands, two_stage)
    hit = _reaches(obj, val, target).reshape(len(KNOBS), len(SCAN))
    lo, hi, best = {}, {}, {}
    for j, k in enumerate(KNOBS):
        if hit[j].any():
            f = int(np.argmax(hit[j]))
            lo[k], hi[k], best[k] = (SCAN[f - 1] if f else 1.0), SCAN[f], val[j * len(SCAN) + f]
    for _ in range(REFINE_STEPS):
        if not hi:
            break
        mids = {k: math.sqrt(lo[k] * hi[k]) for k in hi}
        v, _ = point_values(ctx, econ, [design.scaled(k, m) for k, m in mids.items()], two_stage)
        for (k, m), vk, ok in zip(mids.items(), v, _reaches(obj, v, target)):
            if ok:
                hi[k], best[k] = m, vk
            else:
                lo[k] = m
    return [Requirement(k, obj.name, target, hi.get(k), getattr(design, k) * hi[k] if k in hi else None,
                        float(best[k]) if k in best else None) for k in KNOBS]


def what_two_take(ctx: SweepContext, econ: Economics, design: HardwareCandidate, target: float,
                  two_stage: bool = False) -> Requirement | None:
    """When no knob alone reaches ``target``: the pair of knobs that does when both are scaled by
    the smallest common multiple of the scan (×√2 … ×16); ties go to the lower added capex per
    PE. ``knob`` names the pair ("a+b"), ``knob_value`` is None; None when no pair reaches it."""
    obj = get_objective(ctx.objective)
    pairs = list(itertools.combinations(KNOBS, 2))
    cands = [replace(design, **{a: m * getattr(design, a), b: m * getattr(design, b)})
             for a, b in pairs for m in SCAN]
    val, _ = point_values(ctx, econ, cands, two_stage)
    hit = _reaches(obj, val, target).reshape(len(pairs), len(SCAN))
    if not hit.any():
        return None
    knobs, topo = candidate_rows([design] + cands, ctx.base_hw)
    capex = pe_economics(knobs, topo, ctx.base_hw, econ).capex_usd
    first = [(SCAN[int(np.argmax(h))], capex[1 + p * len(SCAN) + int(np.argmax(h))], p)
             for p, h in enumerate(hit) if h.any()]
    m, _, p = min(first)
    v = val[p * len(SCAN) + SCAN.index(m)]
    return Requirement("+".join(pairs[p]), obj.name, target, m, None, float(v))


def default_target(obj: Objective, design_value: float, target_gain: float) -> float:
    """``target_gain`` times as good as the design point (latency ÷ gain, others × gain)."""
    return design_value * target_gain if obj.maximise else design_value / target_gain
