"""Alpha-beta collective costs over the three link levels, with the cheapest algorithm per level.

A collective is reduced to knob-independent *terms*: for each candidate algorithm ``a`` and link
level ``l``, ``c[a, l]`` bytes that cross a level-``l`` link per PE and ``k[a, l]`` latency hops,
so its time is

    t = Σ_l min_a ( c[a, l] / (B_l · link_eff) + k[a, l] · α_l )

Bandwidths enter at evaluation (they are co-design knobs), so the algorithm is chosen per level,
per message size and per hardware candidate. Terms of one algorithm set add and scale, so the
collectives of one breakdown component that share a shape are summed (a per-level minimum of a
sum would be wrong, so collectives with a choice are kept apart: see :class:`CommSet`).

Algorithms (p ranks on one level, n bytes of result per rank at that level):

=================  ==============================  ===============  =====================
collective         algorithm                       bytes per PE     hops
=================  ==============================  ===============  =====================
all-reduce         ring (reduce-scatter + gather)  2(p−1)/p · n     2(p−1)
                   double binary tree              2 · n            2·⌈log2 p⌉
                   one-shot (read every peer)      (p−1) · n        1
all-gather,        Bruck / recursive doubling      (p−1)/p · n      ⌈log2 p⌉
reduce-scatter     (never slower than a ring)
all-to-all         pairwise exchange               (p−1)/p · n      p−1
                   Bruck                           ⌈log2 p⌉/2 · n   ⌈log2 p⌉
point-to-point     —                               n                1
=================  ==============================  ===============  =====================

When each all-reduce algorithm wins at one level (B = bandwidth, α = hop latency):
one-shot beats the tree while n·(p−3)/B < (2⌈log2 p⌉ − 1)·α — tiny messages, e.g. a decode
step's hidden state; the tree beats the ring while n < p·B·α·(p−1−⌈log2 p⌉)/... i.e. until the
ring's extra 2(p−1−⌈log2 p⌉) hops cost less than the tree's extra 2n/(pB) bytes — so a 64-rank
decode all-reduce across nodes pays ~2·6 hops, not 2·63; large prefill messages take the ring.

Hierarchical (group spanning g0 PEs per cube × g1 cubes × g2 SiPs): the all-gather runs the slow
outer level first on the small shards, so level l moves (g_l−1)/g_l · n / Π_{k<l} g_k; the
reduce-scatter mirrors it; the all-reduce is reduce-scatter inward, all-reduce of the shard at
the outer levels, all-gather outward, each level taking its cheapest algorithm on the shard it
sees. The all-to-all sends to each level the share of its data whose destination is first
reached there: n · (G_l − G_{l−1}) / G with G_l = Π_{k≤l} g_k.
References: Thakur, Rabenseifner & Gropp, "Optimization of Collective Communication Operations in
MPICH" (IJHPCA 2005); Bruck et al., "Efficient algorithms for all-to-all communications" (1997);
Sanders et al., "Two-tree algorithms for full bandwidth broadcast, reduction and scan" (2009),
as used by NCCL's double binary trees; TensorRT-LLM's one-shot custom all-reduce.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

N_LEVELS = 3


@dataclass
class Comm:
    """Per-algorithm, per-level bytes ``c`` and latency hops ``k``, each of shape (A, 3, N)."""

    c: np.ndarray
    k: np.ndarray

    @classmethod
    def zeros(cls, n: int, algorithms: int = 1) -> "Comm":
        return cls(np.zeros((algorithms, N_LEVELS, n)), np.zeros((algorithms, N_LEVELS, n)))

    @property
    def algorithms(self) -> int:
        return self.c.shape[0]

    def __add__(self, other: "Comm") -> "Comm":
        """Sum of two collectives: valid when they offer the same algorithm choice, or when one
        has no choice (min_a(x_a + y) = min_a(x_a) + y); two different choices stay apart."""
        if self.algorithms != other.algorithms and 1 not in (self.algorithms, other.algorithms):
            raise ValueError("collectives with different algorithm choices cannot be summed")
        return Comm(self.c + other.c, self.k + other.k)

    def scale(self, factor) -> "Comm":
        return Comm(self.c * factor, self.k * factor)

    def take(self, idx) -> "Comm":
        return Comm(self.c[:, :, idx], self.k[:, :, idx])

    def with_algorithms(self, a: int) -> "Comm":
        """The same terms offered as ``a`` (identical) algorithm choices."""
        if self.algorithms == a:
            return self
        return Comm(np.repeat(self.c, a, axis=0), np.repeat(self.k, a, axis=0))

    @staticmethod
    def where(mask: np.ndarray, a: "Comm", b: "Comm") -> "Comm":
        """Per config, ``a`` where ``mask`` holds and ``b`` elsewhere."""
        n = max(a.algorithms, b.algorithms)
        a, b = a.with_algorithms(n), b.with_algorithms(n)
        return Comm(np.where(mask, a.c, b.c), np.where(mask, a.k, b.k))

    def is_zero(self) -> bool:
        return not (self.c.any() or self.k.any())

    def time_ns(self, bw_gbs, alpha_ns, link_eff: float) -> np.ndarray:
        """Σ_l min_a c/(B_l·eff) + k·α_l; ``bw_gbs`` and ``alpha_ns`` are 3-sequences whose items
        broadcast against the config axis (scalars, or (U, 1) arrays over link-bandwidth sets)."""
        return self.time_on(LinkTerms.of(bw_gbs, alpha_ns, link_eff))

    def time_on(self, links: "LinkTerms") -> np.ndarray:
        """:meth:`time_ns` on prepared link terms. All levels and algorithms in one broadcast
        ((A, 3, …, N) terms, min over A, sum over the levels in order: the same floating-point
        operations as a loop over them)."""
        shape = (self.algorithms, N_LEVELS) + links.pad + (self.c.shape[-1],)
        t = self.c.reshape(shape) * links.inv + self.k.reshape(shape) * links.alpha
        return np.add.reduce(np.minimum.reduce(t, axis=0), axis=0)


@dataclass(frozen=True)
class LinkTerms:
    """The three levels' 1/(B_l·eff) and α_l shaped to broadcast against (A, 3, …, N) terms:
    built once per evaluation, shared by every collective."""

    inv: np.ndarray
    alpha: np.ndarray
    pad: tuple

    @classmethod
    def of(cls, bw_gbs, alpha_ns, link_eff: float) -> "LinkTerms":
        inv = 1.0 / (np.stack(np.broadcast_arrays(*[np.asarray(b, dtype=float) for b in bw_gbs])) * link_eff)
        s = inv.shape[1:]                   # each level's bandwidth: () or (U, 1) against (N,)
        per_level = (1, N_LEVELS) + (s if s else (1,))
        alpha = np.asarray(alpha_ns, dtype=float).reshape((1, N_LEVELS) + (1,) * max(len(s), 1))
        return cls(inv.reshape(per_level), alpha, (1,) * (len(s) - 1))


@dataclass
class CommSet:
    """The collectives of one breakdown component: those without an algorithm choice summed
    into one :class:`Comm`, those with a choice kept apart (the minimum is per collective)."""

    n: int
    fixed: Comm | None = None
    chosen: list[Comm] = field(default_factory=list)

    def add(self, comm: Comm) -> "CommSet":
        if comm.is_zero():
            return self
        if comm.algorithms == 1:
            self.fixed = comm if self.fixed is None else self.fixed + comm
        else:
            self.chosen.append(comm)
        return self

    def comms(self) -> list[Comm]:
        return ([self.fixed] if self.fixed is not None else []) + self.chosen

    def take(self, idx) -> "CommSet":
        return CommSet(len(np.arange(self.n)[idx]), self.fixed.take(idx) if self.fixed else None,
                       [c.take(idx) for c in self.chosen])

    def time_on(self, links: LinkTerms):
        t = 0.0
        for c in self.comms():
            t = t + c.time_on(links)
        return t


def _log2_ceil(g: np.ndarray) -> np.ndarray:
    return np.ceil(np.log2(np.maximum(g, 1.0)))


def _active(hops: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Latency hops only where there is something to send: an empty collective costs nothing."""
    return hops * (n > 0)


def _shards(levels: np.ndarray, n_bytes) -> tuple[np.ndarray, np.ndarray]:
    """(members per level as float, bytes each level sees: n / Π_{k<l} g_k)."""
    g = np.asarray(levels, dtype=float)
    n = np.asarray(n_bytes, dtype=float) * np.ones_like(g[0])
    return g, n / _inner(g)


def _inner(g: np.ndarray) -> np.ndarray:
    """Π_{k<l} g_k per level: (1, g0, g0·g1)."""
    inner = np.empty_like(g)
    inner[0], inner[1] = 1.0, g[0]
    inner[2] = g[0] * g[1]
    return inner


def all_gather(n_bytes, levels: np.ndarray) -> Comm:
    """Hierarchical all-gather (also the reduce-scatter cost) of ``n_bytes`` total result."""
    g, n_l = _shards(levels, n_bytes)
    c = (g - 1.0) / g * n_l
    return Comm(c[None], _active(_log2_ceil(g), n_l)[None])


reduce_scatter = all_gather


def all_reduce(n_bytes, levels: np.ndarray) -> Comm:
    """Hierarchical all-reduce with ring, double-binary-tree and one-shot candidates per level."""
    g, n_l = _shards(levels, n_bytes)
    on = (g > 1.0).astype(float)
    c = np.stack([2.0 * (g - 1.0) / g * n_l, 2.0 * n_l * on, (g - 1.0) * n_l])
    k = np.stack([2.0 * (g - 1.0), 2.0 * _log2_ceil(g), on])
    return Comm(c, _active(k, n_l[None]))


def all_to_all(n_bytes, levels: np.ndarray) -> Comm:
    """Hierarchical all-to-all where each rank sends ``n_bytes`` spread evenly over the group;
    pairwise exchange or Bruck per level."""
    g = np.asarray(levels, dtype=float)
    n = np.asarray(n_bytes, dtype=float) * np.ones_like(g[0])
    total = g.prod(axis=0)
    prev = _inner(g)
    share = n * (prev * g - prev) / total            # bytes whose destination is first reached here
    lg = _log2_ceil(g)
    # Bruck: ⌈log2 p⌉ rounds each forwarding half of the data crossing the level
    bruck = np.where(g > 1.0, share * g / (g - np.where(g > 1.0, 1.0, 0.0)) * lg / 2.0, 0.0)
    c = np.stack([share, bruck])
    k = np.stack([g - 1.0, lg])
    return Comm(c, _active(k, n[None] * np.ones_like(g)[None]))


def p2p_chain(n_bytes, levels: np.ndarray) -> Comm:
    """``size - 1`` point-to-point sends between consecutive members of a group (pipeline
    stages): hops inside a cube, between cubes and between SiPs, counted per level."""
    g = np.asarray(levels, dtype=float)
    hops = np.stack([(g[0] - 1) * g[1] * g[2], (g[1] - 1) * g[2], g[2] - 1])
    n = np.asarray(n_bytes, dtype=float)
    return Comm((hops * n)[None], _active(hops, n * np.ones_like(hops))[None])


def ring_step(n_bytes, levels: np.ndarray) -> Comm:
    """One step of a ring over the group: every rank sends ``n_bytes`` to its neighbour at
    once; the step runs at the slowest level the ring crosses."""
    g = levels
    top = np.where(g[2] > 1, 2, np.where(g[1] > 1, 1, 0))
    onehot = (np.arange(N_LEVELS)[:, None] == top[None, :]).astype(float)
    nb = np.broadcast_to(np.asarray(n_bytes, dtype=float), top.shape)
    active = ((g.prod(axis=0) > 1) & (nb > 0)).astype(float)   # no payload, no step
    return Comm((onehot * nb * active)[None], (onehot * active)[None])
