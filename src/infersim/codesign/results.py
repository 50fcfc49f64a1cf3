"""The sweep's result: kept pairs as one sorted table of flat arrays, the lazy ``all_scores``
sequence over it, and the two Pareto frontiers.

Slices come back as flat arrays and are assembled with NumPy (no per-pair Python objects);
:class:`ScoreList` builds a :class:`~.types.JointScore` only when an item is read and caches it,
so the same index always gives the same object (``pareto_scores`` items are ``all_scores``
items) while a 10^6-candidate sweep holds ~100 bytes per kept pair.

Economics per pair (see :mod:`infersim.codesign.economics`): ``system_cost_usd = pes · capex per PE``,
``system_power_w = pes · system W per PE``, ``tco_usd_per_h = pes · TCO per PE-hour``.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from infersim.codesign.economics import Economics, pe_economics
from infersim.codesign.grid import rows_at
from infersim.codesign.search import SliceResult, SweepContext, static_terms, topology_hw
from infersim.codesign.types import _HW_KNOB_DEFAULTS, SYSTEM_KNOBS, HardwareCandidate, JointScore
from infersim.search.objectives import Objective, Perf
from infersim.search.pareto import pareto_front
from infersim.specs.hardware import KNOBS

_COLUMNS = ("cand", "config", "pes", "latency_ns", "period_ns", "mem_bytes", "cost_score",
            "tokens_per_s", "system_cost_usd", "system_power_w", "tco_usd_per_h", "objective_value")


@dataclass
class PairTable:
    """Kept (hardware, parallelism) pairs, best first under the objective; one array per
    column (``cand`` indexes the sweep's candidates, ``config`` their topology's space)."""

    cand: np.ndarray
    config: np.ndarray
    pes: np.ndarray
    latency_ns: np.ndarray
    period_ns: np.ndarray
    mem_bytes: np.ndarray
    cost_score: np.ndarray
    tokens_per_s: np.ndarray
    system_cost_usd: np.ndarray
    system_power_w: np.ndarray
    tco_usd_per_h: np.ndarray
    objective_value: np.ndarray

    def __len__(self) -> int:
        return len(self.cand)

    def take(self, idx) -> "PairTable":
        return PairTable(**{c: getattr(self, c)[idx] for c in _COLUMNS})


def cost_scores(knob_rows: np.ndarray) -> np.ndarray:
    """``HardwareCandidate.cost_score`` vectorised, summed in the same order (same floats)."""
    total = np.zeros(len(knob_rows))
    for j, k in enumerate(KNOBS):
        total = total + knob_rows[:, j] / _HW_KNOB_DEFAULTS[k]
    return total


PRICE_CHUNK = 1 << 18    # pairs priced at a time (bounds the temporaries of a huge sweep)


def _price(t: PairTable, axes: list[list], ctx: SweepContext, obj: Objective, econ: Economics) -> None:
    """Fill the cost_score, economics and objective columns, a chunk of pairs at a time."""
    for a in range(0, len(t), PRICE_CHUNK):
        s = slice(a, a + PRICE_CHUNK)
        knobs, topo = rows_at(axes, t.cand[s])
        pe = pe_economics(knobs, topo, ctx.base_hw, econ)
        perf = Perf(t.latency_ns[s], t.period_ns[s], t.pes[s], ctx.wl.tokens, pe.usd_per_h, pe.system_w)
        t.cost_score[s] = cost_scores(knobs)
        t.tokens_per_s[s] = perf.tokens_per_s
        t.system_cost_usd[s] = t.pes[s] * pe.capex_usd
        t.system_power_w[s] = t.pes[s] * pe.system_w
        t.tco_usd_per_h[s] = t.pes[s] * pe.usd_per_h
        t.objective_value[s] = obj.value(perf)


def assemble(parts: list[SliceResult], axes: list[list], ctx: SweepContext, obj: Objective,
             econ: Economics) -> PairTable:
    """Concatenate slices, price the pairs, sort best first by (objective, latency, cost_score,
    system cost, PEs, memory, candidate, config). Columns are permuted one at a time (peak
    memory: one table plus one column)."""
    res = SliceResult.concat(parts)
    n = len(res.cand)
    t = PairTable(cand=res.cand, config=res.config, pes=res.pes, latency_ns=res.latency_ns,
                  period_ns=res.period_ns, mem_bytes=res.mem_bytes,
                  **{c: np.empty(n) for c in _COLUMNS[6:]})
    del res
    _price(t, axes, ctx, obj, econ)
    order = np.lexsort((t.config, t.cand, t.mem_bytes, t.pes, t.system_cost_usd, t.cost_score,
                        t.latency_ns, obj.score(t.objective_value)))
    for c in _COLUMNS:
        setattr(t, c, getattr(t, c)[order])
    return t


class ScoreList(Sequence):
    """``all_scores``: a read-only sequence of :class:`JointScore` over a :class:`PairTable`,
    built on first access and cached (stable identities)."""

    def __init__(self, table: PairTable, axes: list[list], named_topology: tuple[str, ...],
                 ctx: SweepContext):
        self.table, self._axes = table, axes
        self._named, self._ctx = named_topology, ctx
        self._items: dict[int, JointScore] = {}
        self._cands: dict[int, HardwareCandidate] = {}

    def __len__(self) -> int:
        return len(self.table)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if not -n <= i < n:
            raise IndexError("score index out of range")
        i = int(i) % n
        if i not in self._items:
            self._items[i] = self._build(i)
        return self._items[i]

    def __repr__(self) -> str:
        return f"ScoreList({len(self)} pairs)"

    def candidate(self, c: int) -> HardwareCandidate:
        """The candidate at grid position ``c`` (one object per candidate)."""
        if c not in self._cands:
            knobs, topo = rows_at(self._axes, [c])
            named = dict(zip(SYSTEM_KNOBS, map(int, topo[0])))
            self._cands[c] = HardwareCandidate(*map(float, knobs[0]),
                                               **{k: named[k] for k in self._named})
        return self._cands[c]

    def _build(self, i: int) -> JointScore:
        t, c = self.table, int(self.table.cand[i])
        topo = self.candidate(c).system_of(self._ctx.base_hw)
        space, _ = static_terms(self._ctx.model, topology_hw(self._ctx.base_hw, topo), self._ctx.wl)
        f = lambda col: float(getattr(t, col)[i])  # noqa: E731
        return JointScore(self.candidate(c), space.config(int(t.config[i])), f("latency_ns"),
                          f("cost_score"), f("mem_bytes"), int(t.pes[i]), f("period_ns"),
                          f("tokens_per_s"), f("system_cost_usd"), f("system_power_w"),
                          f("tco_usd_per_h"), f("objective_value"))

    def index_of(self, score: JointScore) -> int:
        """The position of an item already read (``pareto_scores`` items are read from here)."""
        return next(i for i, s in self._items.items() if s is score)

    def columns(self, idx=None) -> dict[str, np.ndarray]:
        """Pairs ``idx`` (default all) as named columns, vectorised: hardware knobs and system
        size (``hw_*``), the parallelism fields, PEs, latency, period, memory, cost_score,
        throughput, economics and the objective value; units in the names."""
        t = self.table if idx is None else self.table.take(np.asarray(idx, dtype=np.int64))
        knobs, topo = rows_at(self._axes, t.cand)
        cols: dict[str, np.ndarray] = {f"hw_{k}": knobs[:, j] for j, k in enumerate(KNOBS)}
        cols.update({f"hw_{k}": topo[:, j] for j, k in enumerate(SYSTEM_KNOBS)})
        par: dict[str, np.ndarray] = {}
        groups, inverse = np.unique(topo, axis=0, return_inverse=True)
        for g, tp in enumerate(groups):
            rows = np.flatnonzero(inverse.ravel() == g)
            space, _ = static_terms(self._ctx.model, topology_hw(self._ctx.base_hw, tuple(map(int, tp))),
                                    self._ctx.wl)
            for name, col in space.take(t.config[rows]).columns().items():
                par.setdefault(name, np.empty(len(t), dtype=col.dtype))[rows] = col
        tok = t.tokens_per_s
        cols.update(par)
        cols.update({"pes": t.pes, "total_latency_ms": t.latency_ns / 1e6, "period_ms": t.period_ns / 1e6,
                     "mem_per_pe_gb": t.mem_bytes / 1e9, "cost_score": t.cost_score, "tokens_per_s": tok,
                     "tokens_per_s_per_pe": tok / t.pes, "system_cost_usd": t.system_cost_usd,
                     "system_power_w": t.system_power_w, "tco_usd_per_h": t.tco_usd_per_h,
                     "tokens_per_usd": tok * 3600.0 / t.tco_usd_per_h, "tokens_per_j": tok / t.system_power_w,
                     "objective_value": t.objective_value})
        return cols

    def iter_transient(self) -> Iterator[JointScore]:
        """Every pair in order, built without caching (CSV of a huge sweep: O(1) memory)."""
        for i in range(len(self)):
            yield self._items.get(i) or self._build(i)


def frontiers(table: PairTable, obj: Objective) -> tuple[np.ndarray, np.ndarray]:
    """Indices (into the table) of the two Pareto frontiers, each by increasing objective score:

    * capability: (objective, cost_score) over each candidate's best pair — its other pairs have
      the same cost_score and a worse objective, so they can never be on it;
    * dollars: (objective, system_cost_usd) over every kept pair (pairs of one candidate differ
      in PEs, hence in cost)."""
    score = obj.score(table.objective_value)
    _, first = np.unique(table.cand, return_index=True)
    first.sort()
    cap = first[pareto_front(score[first], table.cost_score[first])]
    usd = pareto_front(score, table.system_cost_usd)
    return cap, usd


def tolerance_pick(table: PairTable, obj: Objective, tolerance: float) -> int:
    """Index of the answer: among pairs whose objective is within ``tolerance`` of the best
    (latency ≤ best · (1 + tol); higher-is-better ≥ best · (1 − tol)), the one of lowest system
    capex (ties: the better objective, i.e. the earlier row). 0 when ``tolerance`` is 0."""
    if not len(table) or tolerance <= 0:
        return 0
    v, best = table.objective_value, float(table.objective_value[0])
    near = v >= best * (1 - tolerance) if obj.maximise else v <= best * (1 + tolerance)
    idx = np.flatnonzero(near)
    return int(idx[np.argmin(table.system_cost_usd[idx])])
