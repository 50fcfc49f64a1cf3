"""Alpha-beta collective costs over the three link levels (intra-cube, inter-cube, inter-SiP).

A collective is reduced to per-level *terms*: ``c[l]`` bytes that cross a level-``l`` link per PE
and ``k[l]`` latency hops at that level, so its time is

    t = Σ_l c[l] / (B_l · link_eff) + k[l] · α_l

The terms depend only on the configuration; bandwidths and latencies enter at evaluation, which is
what lets one hardware-independent pass serve every hardware candidate of a co-design sweep. Terms
add, so all collectives of one breakdown component are summed into one ``Comm``.

Formulas (p ranks on one level, n bytes total per rank's result):

    all-gather / reduce-scatter   (p-1)/p · n/B + (p-1)·α
    ring all-reduce               2(p-1)/p · n/B + 2(p-1)·α       (= reduce-scatter + all-gather)
    all-to-all                    (p-1)/p · n/B + (p-1)·α         (n = bytes each rank sends in all)
    point-to-point                n/B + α

Hierarchical (group spanning g0 PEs per cube × g1 cubes × g2 SiPs): the all-gather runs the slow
outer level first on the small shards, so level l moves (g_l-1)/g_l · n / Π_{k<l} g_k; the
reduce-scatter mirrors it; the all-reduce is both. The all-to-all sends to each level the share of
its data whose destination is first reached there: n · (G_l − G_{l−1}) / G with G_l = Π_{k≤l} g_k.
References: Thakur et al., "Optimization of Collective Communication Operations in MPICH" (2005);
NCCL's hierarchical (tree / 2D ring) algorithms.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

N_LEVELS = 3


@dataclass
class Comm:
    """Per-level bytes ``c`` and latency hops ``k``, each of shape (3, n)."""

    c: np.ndarray
    k: np.ndarray

    @classmethod
    def zeros(cls, n: int) -> "Comm":
        return cls(np.zeros((N_LEVELS, n)), np.zeros((N_LEVELS, n)))

    def __add__(self, other: "Comm") -> "Comm":
        return Comm(self.c + other.c, self.k + other.k)

    def scale(self, factor) -> "Comm":
        return Comm(self.c * factor, self.k * factor)

    def take(self, idx) -> "Comm":
        return Comm(self.c[:, idx], self.k[:, idx])

    def time_ns(self, bw_gbs, alpha_ns, link_eff: float) -> np.ndarray:
        """Σ_l c_l/(B_l·eff) + k_l·α_l; ``bw_gbs`` and ``alpha_ns`` are 3-sequences whose items
        broadcast against the config axis (scalars, or (H, 1) arrays over hardware candidates)."""
        t = 0.0
        for lvl in range(N_LEVELS):
            t = t + self.c[lvl] / (np.asarray(bw_gbs[lvl]) * link_eff) + self.k[lvl] * alpha_ns[lvl]
        return t


def _hops(hops: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Latency hops only where there is something to send: an empty collective costs nothing."""
    return hops * (n > 0)


def all_gather(n_bytes, levels: np.ndarray) -> Comm:
    """Hierarchical all-gather (also the reduce-scatter cost) of ``n_bytes`` total result."""
    g = np.asarray(levels, dtype=float)
    n = np.asarray(n_bytes, dtype=float)
    c = np.empty_like(g)
    inner = np.ones_like(g[0])
    for lvl in range(N_LEVELS):
        c[lvl] = (g[lvl] - 1.0) / g[lvl] * n / inner
        inner = inner * g[lvl]
    return Comm(c, _hops(g - 1.0, n))


reduce_scatter = all_gather


def all_reduce(n_bytes, levels: np.ndarray) -> Comm:
    """Hierarchical ring all-reduce = reduce-scatter + all-gather."""
    return all_gather(n_bytes, levels).scale(2.0)


def all_to_all(n_bytes, levels: np.ndarray) -> Comm:
    """Hierarchical all-to-all where each rank sends ``n_bytes`` spread evenly over the group."""
    g = np.asarray(levels, dtype=float)
    n = np.asarray(n_bytes, dtype=float)
    total = g.prod(axis=0)
    c = np.empty_like(g)
    prev = np.ones_like(g[0])
    for lvl in range(N_LEVELS):
        cur = prev * g[lvl]
        c[lvl] = n * (cur - prev) / total
        prev = cur
    return Comm(c, _hops(g - 1.0, n))


def p2p_chain(n_bytes, levels: np.ndarray) -> Comm:
    """``size - 1`` point-to-point sends between consecutive members of a group (pipeline
    stages): hops inside a cube, between cubes and between SiPs, counted per level."""
    g = np.asarray(levels, dtype=float)
    hops = np.stack([(g[0] - 1) * g[1] * g[2], (g[1] - 1) * g[2], g[2] - 1])
    n = np.asarray(n_bytes, dtype=float)
    return Comm(hops * n, _hops(hops, n))


def ring_step(n_bytes, levels: np.ndarray) -> Comm:
    """One step of a ring over the group: every rank sends ``n_bytes`` to its neighbour at
    once; the step runs at the slowest level the ring crosses."""
    g = levels
    top = np.where(g[2] > 1, 2, np.where(g[1] > 1, 1, 0))
    onehot = (np.arange(N_LEVELS)[:, None] == top[None, :]).astype(float)
    nb = np.broadcast_to(np.asarray(n_bytes, dtype=float), top.shape)
    active = ((g.prod(axis=0) > 1) & (nb > 0)).astype(float)   # no payload, no step
    return Comm(onehot * nb * active, onehot * active)
