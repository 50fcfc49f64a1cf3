"""Alpha-beta collective costs over the three link levels, with the cheapest algorithm per level.

A collective is reduced to knob-independent *terms*: for each candidate algorithm ``a`` and link
level ``l``, ``c[a, l]`` bytes that cross a level-``l`` link per PE and ``k[a, l]`` latency hops,
so its time is

    t = Σ_l min_a ( c[a, l] / (B_l · link_eff_l) + k[a, l] · α_l )     (link_eff_l: HardwareSpec.link_effs)

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
                   one-shot (read every peer;      (p−1) · n        1
                   scale-up levels only)
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

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from infersim.cost.runs import runs, sorted_runs

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
        """The same terms offered as ``a`` algorithm choices (the last one repeated: the minimum
        over them is unchanged)."""
        if self.algorithms == a:
            return self
        idx = np.minimum(np.arange(a), self.algorithms - 1)
        return Comm(self.c[idx], self.k[idx])

    @staticmethod
    def where(mask: np.ndarray, a: "Comm", b: "Comm") -> "Comm":
        """Per config, ``a`` where ``mask`` holds and ``b`` elsewhere."""
        n = max(a.algorithms, b.algorithms)
        a, b = a.with_algorithms(n), b.with_algorithms(n)
        return Comm(np.where(mask, a.c, b.c), np.where(mask, a.k, b.k))

    def time_ns(self, bw_gbs, alpha_ns, link_eff) -> np.ndarray:
        """Σ_l min_a c/(B_l·eff_l) + k·α_l; ``bw_gbs`` and ``alpha_ns`` are 3-sequences whose items
        broadcast against the config axis (scalars, or (U, 1) arrays over link-bandwidth sets);
        ``link_eff`` one efficiency or one per level (``HardwareSpec.link_effs``)."""
        return self.time_on(LinkTerms.of(bw_gbs, alpha_ns, link_eff))

    def time_on(self, links: "LinkTerms") -> np.ndarray:
        """:meth:`time_ns` on prepared link terms: (U, N), or (N,) for scalar bandwidths."""
        t = link_time(self.c, self.k, links)
        return t if links.batched else t[0]


@dataclass(frozen=True)
class LinkTerms:
    """The three levels' 1/(B_l·eff) as (U, 3) rows over U link-bandwidth sets and α_l as (3,):
    built once per evaluation, shared by every collective. ``batched``: the bandwidths came as
    (U, 1) arrays (else U = 1 and results drop that axis)."""

    inv: np.ndarray
    alpha: np.ndarray
    batched: bool

    @classmethod
    def of(cls, bw_gbs, alpha_ns, link_eff) -> "LinkTerms":
        bw = np.stack(np.broadcast_arrays(*[np.asarray(b, dtype=float) for b in bw_gbs]))
        eff = np.broadcast_to(np.asarray(link_eff, dtype=float), (N_LEVELS,))
        inv = 1.0 / (bw * eff.reshape((N_LEVELS,) + (1,) * (bw.ndim - 1)))
        return cls(inv.reshape(N_LEVELS, -1).T, np.asarray(alpha_ns, dtype=float), bw.ndim > 1)


def link_time(c: np.ndarray, k: np.ndarray, links: LinkTerms) -> np.ndarray:
    """Times of collectives of (algorithms, 3 levels, ...) terms on U link sets, (U, ...): per
    level the cheapest algorithm, ``min_a c·inv_l + k·α_l``, then the levels summed in order."""
    pad = (None,) * (c.ndim - 2)
    t = c[None] * links.inv[(slice(None), None, slice(None)) + pad] + k[None] * links.alpha[(slice(None),) + pad]
    t = np.minimum.reduce(t, axis=1)
    return t[:, 0] + t[:, 1] + t[:, 2]


#: Up to this many configs a block's rows are priced in one broadcast over their stacked terms
#: (NumPy's cost per call dominates); beyond it row by row, without the stacked copy.
STACK_MAX_N = 256


def _stack_rows(rows: tuple) -> np.ndarray:
    """(A, 3, N) rows as one (A, 3, R, N) array: ``np.stack(rows, axis=2)``'s values, as a view
    of one copy (a third of np.stack's cost for the few tiny rows of one config)."""
    return np.array(rows).transpose(1, 2, 0, 3)


class CommBlock:
    """Collectives of N configs with the same number A of algorithm choices: per row (one per
    (component, kind, collective), rows of one kind consecutive) bytes ``cs[r]`` and hops
    ``ks[r]`` of shape (A, 3 levels, N); ``c`` / ``k`` stack them to (A, 3, R, N) on first use."""

    def __init__(self, cs: tuple, ks: tuple, components: tuple[str, ...], kinds: tuple[str, ...],
                 rows: tuple[int, ...] = ()):
        self.cs, self.ks, self.components, self.kinds = cs, ks, components, kinds
        self.rows = rows            # each row's index in the rows the table was built from
        self.n = cs[0].shape[-1]
        self.kind_runs = runs(kinds)
        #: (runs of the rows sorted by component, that order)
        self.component_runs = sorted_runs(components)

    @cached_property
    def c(self) -> np.ndarray:
        return _stack_rows(self.cs)

    @cached_property
    def k(self) -> np.ndarray:
        return _stack_rows(self.ks)

    @property
    def depth(self) -> int:
        """Elements per config of the stacked terms (A · 3 · R)."""
        return self.cs[0].shape[0] * N_LEVELS * len(self.cs)

    def take(self, idx) -> "CommBlock":
        return CommBlock(tuple(c[..., idx] for c in self.cs), tuple(k[..., idx] for k in self.ks),
                         self.components, self.kinds, self.rows)

    def row_times(self, ns, links: "LinkTerms") -> list[np.ndarray]:
        """(U, n) :func:`link_time` of each row on configs ``ns``: one broadcast over the stacked
        rows for few configs, row by row for many (the same element-wise arithmetic either way,
        so the same bits)."""
        if self.n <= STACK_MAX_N:
            t = link_time(self.c[..., ns], self.k[..., ns], links)
            return [t[:, i] for i in range(t.shape[1])]
        return [link_time(c[..., ns], k[..., ns], links) for c, k in zip(self.cs, self.ks)]

    def spans_sips(self):
        """Per row, (N,) bool: the collective crosses SiPs (nodes); an (R, N) array of them for
        few configs (one reduction over the stacked hops), a list for many."""
        if self.n <= STACK_MAX_N:
            return self.k[:, 2].max(axis=0) > 0
        return [k[:, 2].max(axis=0) > 0 for k in self.ks]


@dataclass
class CommTable:
    """Every collective of N configs, in one :class:`CommBlock` per number of algorithm choices
    (stacking without padding: a choice-free collective costs one algorithm's work), so that
    evaluation prices each block in one broadcast."""

    blocks: list[CommBlock]

    @classmethod
    def of(cls, rows: list[tuple[str, str, Comm]], kind_order) -> "CommTable":
        """``rows`` of (component, kind, collective), sorted by kind (stable) into one block per
        number of algorithm choices."""
        layout = _layout(tuple((r[0], r[1], r[2].algorithms) for r in rows), tuple(kind_order))
        return cls([CommBlock(tuple(rows[i][2].c for i in idx), tuple(rows[i][2].k for i in idx), comps, kinds, idx)
                    for idx, comps, kinds in layout])

    def __len__(self) -> int:
        return sum(len(b.kinds) for b in self.blocks)

    def take(self, idx) -> "CommTable":
        return CommTable([b.take(idx) for b in self.blocks])


@lru_cache(maxsize=1024)
def _layout(sig: tuple, kind_order: tuple) -> tuple:
    """(row indices, their components, their kinds) of each :class:`CommBlock` for rows of
    signature (component, kind, algorithms): the rows in ``kind_order`` (stable), split by their
    number of algorithms (cached: every evaluation of a model states the same collectives)."""
    order = sorted(range(len(sig)), key=lambda i: kind_order.index(sig[i][1]))
    out = []
    for a in sorted({x[2] for x in sig}):
        idx = tuple(i for i in order if sig[i][2] == a)
        out.append((idx, tuple(sig[i][0] for i in idx), tuple(sig[i][1] for i in idx)))
    return tuple(out)


class Levels:
    """A group's members per link level, (3, N) floats, with the per-byte terms of each
    collective over it computed once: every collective's bytes are its message size times a
    factor of the levels alone, and its hops those of the levels where there is something to send,
    so the groups of a configuration (TP, CP, the FFN's) price all their collectives from one set."""

    __slots__ = ("g", "_terms")

    def __init__(self, g):
        self.g = np.asarray(g, dtype=float)
        self._terms: dict = {}

    def terms(self, kind: str) -> tuple[np.ndarray, np.ndarray]:
        """(bytes per byte sent, hops), each (A, 3, N), of collective ``kind`` over this group
        (read-only: shared between groups of the same levels)."""
        if kind not in self._terms:
            self._terms[kind] = _shared_terms(kind, self.g) if self.g.shape[1] <= _SHARED_MAX_N \
                else _PER_BYTE[kind](self.g)
        return self._terms[kind]

    def collective(self, kind: str, n_bytes) -> Comm:
        c, k = self.terms(kind)
        n = n_bytes if isinstance(n_bytes, (float, np.floating)) else np.asarray(n_bytes, dtype=float)
        return Comm(c * n, k * (n > 0))


# One simulate() call prices a handful of groups whose levels recur from call to call (they
# depend on the degrees and the topology only): their terms are computed once per process.
_SHARED_MAX_N = 8
_SHARED: dict = {}


def _shared_terms(kind: str, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    key = (kind, g.shape, g.tobytes())
    hit = _SHARED.get(key)
    if hit is None:
        if len(_SHARED) > 4096:
            _SHARED.clear()
        c, k = _PER_BYTE[kind](g)
        c.flags.writeable = k.flags.writeable = False
        hit = _SHARED[key] = (c, k)
    return hit


def levels_of(levels) -> Levels:
    return levels if isinstance(levels, Levels) else Levels(levels)


def _log2_ceil(g: np.ndarray) -> np.ndarray:
    return np.ceil(np.log2(np.maximum(g, 1.0)))


def _inner(g: np.ndarray) -> np.ndarray:
    """Π_{k<l} g_k per level: (1, g0, g0·g1)."""
    inner = np.empty_like(g)
    inner[0], inner[1] = 1.0, g[0]
    inner[2] = g[0] * g[1]
    return inner


def _all_gather_terms(g):
    """All-gather of n bytes of result: level l moves (g_l − 1)/g_l of its share n/Π_{k<l} g_k
    (Bruck / recursive doubling, ⌈log2 g_l⌉ hops)."""
    return ((g - 1.0) / g / _inner(g))[None], _log2_ceil(g)[None]


def _all_reduce_terms(g):
    """All-reduce candidates per level on the share n/Π_{k<l} g_k: ring 2(g−1)/g and 2(g−1) hops,
    double binary tree 2 and 2⌈log2 g⌉, one-shot g − 1 and one hop. One-shot reads every peer's
    buffer with loads (TensorRT-LLM's and vLLM's custom all-reduce over NVLink / xGMI peer
    memory), which only the scale-up levels (in a cube, between the cubes of a SiP) offer: between
    SiPs, over a network, NCCL runs rings and trees, so there the one-shot column is the tree's."""
    inner, on = _inner(g), (g > 1.0).astype(float)
    tree_c, tree_k = 2.0 * on / inner, 2.0 * _log2_ceil(g)
    one_c, one_k = (g - 1.0) / inner, on.copy()
    one_c[2], one_k[2] = tree_c[2], tree_k[2]
    c = np.stack([2.0 * (g - 1.0) / g / inner, tree_c, one_c])
    return c, np.stack([2.0 * (g - 1.0), tree_k, one_k])


def _all_to_all_terms(g):
    """All-to-all: level l carries the share of the data first reached there, (G_l − G_{l−1})/G;
    pairwise exchange (g − 1 hops) or Bruck (⌈log2 g⌉ rounds, each forwarding half of it)."""
    prev = _inner(g)
    share = (prev * g - prev) / g.prod(axis=0)
    lg = _log2_ceil(g)
    bruck = np.where(g > 1.0, share * g / (g - np.where(g > 1.0, 1.0, 0.0)) * lg / 2.0, 0.0)
    return np.stack([share, bruck]), np.stack([g - 1.0, lg])


def _p2p_terms(g):
    """``size − 1`` sends between consecutive members: hops inside a cube, between cubes and
    between SiPs, each moving the whole message."""
    hops = np.stack([(g[0] - 1) * g[1] * g[2], (g[1] - 1) * g[2], g[2] - 1])
    return hops[None], hops[None]


def _ring_terms(g):
    """One ring step at the slowest level the ring crosses (none for a group of one)."""
    top = np.where(g[2] > 1, 2, np.where(g[1] > 1, 1, 0))
    step = (np.arange(N_LEVELS)[:, None] == top[None, :]) * (g.prod(axis=0) > 1)
    return step[None] * 1.0, step[None] * 1.0


_PER_BYTE = {"all_gather": _all_gather_terms, "all_reduce": _all_reduce_terms,
             "all_to_all": _all_to_all_terms, "p2p": _p2p_terms, "ring": _ring_terms}


def all_gather(n_bytes, levels) -> Comm:
    """Hierarchical all-gather (also the reduce-scatter cost) of ``n_bytes`` total result."""
    return levels_of(levels).collective("all_gather", n_bytes)


reduce_scatter = all_gather


def all_reduce(n_bytes, levels) -> Comm:
    """Hierarchical all-reduce with ring, double-binary-tree and one-shot candidates per level."""
    return levels_of(levels).collective("all_reduce", n_bytes)


def all_to_all(n_bytes, levels) -> Comm:
    """Hierarchical all-to-all where each rank sends ``n_bytes`` spread evenly over the group;
    pairwise exchange or Bruck per level."""
    return levels_of(levels).collective("all_to_all", n_bytes)


def p2p_chain(n_bytes, levels) -> Comm:
    """``size - 1`` point-to-point sends between consecutive members of a group (pipeline
    stages): hops inside a cube, between cubes and between SiPs, counted per level."""
    return levels_of(levels).collective("p2p", n_bytes)


def ring_step(n_bytes, levels) -> Comm:
    """One step of a ring over the group: every rank sends ``n_bytes`` to its neighbour at
    once; the step runs at the slowest level the ring crosses."""
    return levels_of(levels).collective("ring", n_bytes)
