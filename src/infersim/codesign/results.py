"""The sweep's result: kept pairs as one sorted table of flat arrays, the lazy ``all_scores``
sequence over it, and the two Pareto frontiers.

Slices come back as flat arrays and are assembled with NumPy (no per-pair Python objects);
:class:`ScoreList` builds a :class:`~.types.JointScore` only when an item is read and caches it,
so the same index always gives the same object (``pareto_scores`` items are ``all_scores``
items) while a 10^6-candidate sweep holds ~100 bytes per kept pair.

Economics per pair (see :mod:`infersim.economics`): ``system_cost_usd = pes · capex per PE``,
``system_power_w = pes · system W per PE``, ``tco_usd_per_h = pes · TCO per PE-hour``.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..economics import Economics, pe_economics
from ..hardware import KNOBS
from ..objectives import Objective, Perf
from ..pareto import pareto_front
from .search import SliceResult, SweepContext, static_terms, topology_hw
from .types import _HW_KNOB_DEFAULTS, HardwareCandidate, JointScore

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


def assemble(parts: list[tuple[int, SliceResult]], knob_rows: np.ndarray, topo_rows: np.ndarray,
             ctx: SweepContext, obj: Objective, econ: Economics) -> PairTable:
    """Concatenate slices (``(offset, result)``), price the pairs, sort best first by
    (objective, latency, cost_score, system cost, PEs, memory, candidate, config)."""
    cat = lambda f: np.concatenate([getattr(r, f) for _, r in parts])  # noqa: E731
    cand = np.concatenate([r.cand + off for off, r in parts])
    pes = cat("pes")
    lat, per = cat("latency_ns"), cat("period_ns")
    pe = pe_economics(knob_rows[cand], topo_rows[cand], ctx.base_hw, econ)
    perf = Perf(lat, per, pes, ctx.wl.tokens, pe.usd_per_h, pe.system_w)
    t = PairTable(cand=cand, config=cat("config"), pes=pes, latency_ns=lat, period_ns=per,
                  mem_bytes=cat("mem_bytes"), cost_score=cost_scores(knob_rows[cand]),
                  tokens_per_s=perf.tokens_per_s, system_cost_usd=pes * pe.capex_usd,
                  system_power_w=pes * pe.system_w, tco_usd_per_h=pes * pe.usd_per_h,
                  objective_value=obj.value(perf))
    order = np.lexsort((t.config, t.cand, t.mem_bytes, t.pes, t.system_cost_usd, t.cost_score,
                        t.latency_ns, obj.score(t.objective_value)))
    return t.take(order)


class ScoreList(Sequence):
    """``all_scores``: a read-only sequence of :class:`JointScore` over a :class:`PairTable`,
    built on first access and cached (stable identities)."""

    def __init__(self, table: PairTable, knob_rows: np.ndarray, topo_rows: np.ndarray,
                 named_topology: tuple[str, ...], ctx: SweepContext):
        self.table, self._knobs, self._topo = table, knob_rows, topo_rows
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
        if c not in self._cands:
            topo = dict(zip(("pes_per_cube", "cubes_per_sip", "n_sips"), map(int, self._topo[c])))
            self._cands[c] = HardwareCandidate(*map(float, self._knobs[c]),
                                               **{k: topo[k] for k in self._named})
        return self._cands[c]

    def _build(self, i: int) -> JointScore:
        t, c = self.table, int(self.table.cand[i])
        topo = tuple(int(x) for x in self._topo[c])
        space, _ = static_terms(self._ctx.model, topology_hw(self._ctx.base_hw, topo), self._ctx.wl)
        f = lambda col: float(getattr(t, col)[i])  # noqa: E731
        return JointScore(self.candidate(c), space.config(int(t.config[i])), f("latency_ns"),
                          f("cost_score"), f("mem_bytes"), int(t.pes[i]), f("period_ns"),
                          f("tokens_per_s"), f("system_cost_usd"), f("system_power_w"),
                          f("tco_usd_per_h"), f("objective_value"))

    def rows(self, to_dict: Callable[[JointScore], dict] | None = None) -> list[dict]:
        """Every pair as a plain dict (CSV / JSON)."""
        return [(to_dict or JointScore.to_dict)(s) for s in self]


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
