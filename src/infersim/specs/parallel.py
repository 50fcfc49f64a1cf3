"""Parallelism configuration, its validation, and the struct-of-arrays form the cost model uses.

Knobs (PEs used = tp·cp·pp·dp; EP folds into the tp·cp·dp ranks of MoE layers):

* ``tp``  tensor parallel: heads and FFN columns/rows sharded, all-reduces of activations.
* ``pp``  pipeline stages (must divide the layer count); decode latency is the sum over stages.
* ``dp``  replicas; the batch is split over them (``dp`` ≤ batch, otherwise replicas idle).
* ``cp``  context parallel: the sequence / KV cache split over ``cp`` ranks.
* ``ep``  expert parallel (MoE only): experts split over ``ep`` of the tp·cp·dp ranks.
* ``kv_shard_mode`` — how the KV cache is split inside the TP group:
    - ``"head"``: by KV head; when ``n_kv_heads < tp`` each KV head (its cache and its K/V
      projection) is replicated on ``tp / n_kv_heads`` ranks. No extra communication, but the
      replicated cache costs memory and every replica re-reads it.
    - ``"seq"``: by sequence over the whole TP group; every rank holds all KV heads for
      ``s/tp`` tokens, gathers the queries of all heads (all-gather) and combines the partial
      outputs with their softmax statistics O, m, l (reduce-scatter). No replication at all.
    - ``"hybrid"``: by head as far as the KV heads go (``min(n_kv, tp)`` groups), then by sequence
      inside each group of ``tp / n_kv`` ranks that would otherwise replicate; the Q gather and
      O/m/l combine happen only inside that small group. Identical to ``"head"`` when
      ``n_kv_heads ≥ tp``.
* ``ffn_shard_scope`` — ``"TP"`` or ``"TP+CP"``: shard the FFN over tp·cp PEs. In decode the CP
  ranks hold the same tokens after the attention combine, so the FFN weights (most of the bytes)
  split cp times further, at the price of an all-reduce over the larger group.
* ``tp_placement`` / ``cp_placement`` — the device-mesh rank order (innermost first), which decides
  the link levels each group crosses (compare Megatron-Core ``order="tp-cp-ep-dp-pp"``):

    ===========  ============  ===================
    tp_placement cp_placement  order (inner→outer)
    ===========  ============  ===================
    cube         pe            tp, cp, dp, pp   (default: TP inside a cube, CP on neighbouring PEs)
    spread       pe            cp, tp, dp, pp
    cube         spread        tp, dp, pp, cp   (CP ranks as far apart as possible)
    spread       spread        dp, pp, cp, tp
    ===========  ============  ===================
* ``cp_ring_variant`` — ``"kv"`` (pass-KV: KV chunks rotate around the ring, overlapped with block
  attention; the prefill default) or ``"qoml"`` (pass-Q: queries travel, partial O with softmax
  stats m, l come back and are combined; the decode default, which shards the batch round-robin
  over the CP ranks, padded to a multiple of cp). ``None`` picks the mode default.
* ``microbatches`` — micro-batches in flight through the pipeline (``None``: min(pp, sequences
  per replica), 1 without a pipeline). Decode splits a replica's b sequences into m groups of
  ⌈b/m⌉ (1 ≤ m ≤ b): one token of one micro-batch takes the sum of the stage times, and the stages
  serve the m micro-batches in turn, so a sequence's next token comes after
  max(m · slowest stage, sum of stages) and throughput is b tokens per that period. Prefill may
  also chunk each prompt: m = b·c with c a power of two (chunks of ≥ 128 tokens) streams the
  chunks through the stages, so the batch's prefill takes sum of stages + (m − 1) · slowest stage.
  Every micro-batch re-reads its stage's weights.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Sequence

import numpy as np

from infersim.errors import InferSimError, choice, require, short_repr

KV_SHARD_MODES = ("head", "seq", "hybrid")
FFN_SHARD_SCOPES = ("TP", "TP+CP")
TP_PLACEMENTS = ("cube", "spread")
CP_PLACEMENTS = ("pe", "spread")
CP_RING_VARIANTS = ("kv", "qoml")


def default_ring_variant(mode: str) -> str:
    return "qoml" if mode == "decode" else "kv"


@dataclass(frozen=True)
class Parallelism:
    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    kv_shard_mode: str = "head"
    ffn_shard_scope: str = "TP"
    tp_placement: str = "cube"
    cp_placement: str = "pe"
    cp_ring_variant: str | None = None
    microbatches: int | None = None

    def __post_init__(self) -> None:
        if self.microbatches is not None:
            m = self.microbatches
            require(isinstance(m, (int, np.integer)) and not isinstance(m, bool) and m >= 1,
                    lambda: f"microbatches must be an integer >= 1, got {short_repr(m)}")
        for f in ("tp", "pp", "dp", "cp", "ep"):
            v = getattr(self, f)
            require(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1,
                    lambda: f"{f} must be an integer >= 1, got {short_repr(v)}")
        choice("kv_shard_mode", self.kv_shard_mode, KV_SHARD_MODES)
        choice("ffn_shard_scope", self.ffn_shard_scope, FFN_SHARD_SCOPES)
        choice("tp_placement", self.tp_placement, TP_PLACEMENTS)
        choice("cp_placement", self.cp_placement, CP_PLACEMENTS)
        if self.cp_ring_variant is not None:
            choice("cp_ring_variant", self.cp_ring_variant, CP_RING_VARIANTS)

    @property
    def pes(self) -> int:
        return self.tp * self.cp * self.pp * self.dp

    def validate(self, model, hw, workload) -> None:
        """Reject combinations that cannot run, with a one-line reason."""
        check_divisibility(model, self.tp, self.pp, self.ep, self.cp * self.dp)
        require(self.pes <= hw.n_pes,
                lambda: f"tp·cp·pp·dp = {self.pes} PEs exceeds the {hw.n_pes} PEs of {hw.name}")
        require(self.dp <= workload.batch,
                lambda: f"dp ({self.dp}) exceeds batch ({workload.batch}): replicas would idle; use dp <= batch")
        require(self.cp <= workload.s_kv, lambda: f"cp ({self.cp}) exceeds the context length ({workload.s_kv})")
        check_microbatches(self.resolved_microbatches(workload), self.pp, self.dp, workload)

    def resolved_microbatches(self, workload) -> int:
        """``microbatches``, or its default: min(pp, sequences per replica)."""
        if self.microbatches is not None:
            return int(self.microbatches)
        return default_microbatches(self.pp, self.dp, workload.batch)

    def resolved(self, workload) -> "Parallelism":
        """This config with the ring variant and micro-batch count made explicit."""
        if self.cp_ring_variant is not None and self.microbatches is not None:
            return self                 # already explicit (frozen: sharing it is safe)
        return _resolved(self, self.cp_ring_variant or default_ring_variant(workload.mode),
                         self.resolved_microbatches(workload))

    def describe(self) -> str:
        s = f"TP{self.tp} CP{self.cp} PP{self.pp} DP{self.dp}"
        if self.ep > 1:
            s += f" EP{self.ep}"
        if self.pp > 1 and self.microbatches and self.microbatches > 1:
            s += f" m{self.microbatches}"
        return s

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


MIN_CHUNK_TOKENS = 128   # prefill chunks streamed through a pipeline are at least this long


def sequences_per_replica(batch: int, dp: int) -> int:
    return -(-batch // dp)


def default_microbatches(pp: int, dp: int, batch: int) -> int:
    return 1 if pp == 1 else min(pp, sequences_per_replica(batch, dp))


def check_microbatches(m: int, pp: int, dp: int, workload) -> None:
    """Decode: 1 ≤ m ≤ sequences per replica; prefill may also chunk each prompt into a
    power-of-two number of chunks of at least MIN_CHUNK_TOKENS; no micro-batches without PP."""
    b = sequences_per_replica(workload.batch, dp)
    if pp == 1:
        require(m == 1, lambda: f"microbatches ({m}) need a pipeline (pp > 1)")
        return
    if m <= b:
        return
    chunks, rem = divmod(m, b)
    ok = (workload.is_prefill and rem == 0 and chunks & (chunks - 1) == 0
          and workload.new_tokens // chunks >= MIN_CHUNK_TOKENS)
    require(ok, lambda: f"microbatches ({m}) must be <= the {b} sequences per replica"
            + (f", or {b} x a power of two with chunks of >= {MIN_CHUNK_TOKENS} tokens"
               if workload.is_prefill else ""))


def _choices(values, cap: int = 24) -> str:
    """A capped, comma-separated list of valid values for an error message."""
    values = list(values)
    head = ", ".join(str(v) for v in values[:cap])
    return head + (f", ... ({len(values)} in all)" if len(values) > cap else "")


def check_divisibility(model, tp: int, pp: int, ep: int = 1, other_ranks: int = 1) -> None:
    """The model-shape constraints every config must meet (cheapest rejection, checked first).
    O(1) when they hold: valid choices are listed only in the error message."""
    if model.n_heads % tp:
        raise InferSimError(f"tp ({tp}) must divide n_heads ({model.n_heads}); valid tp: "
                            f"{_choices(valid_tp(model))}")
    nkv = model.n_kv_heads
    require(nkv % tp == 0 or tp % nkv == 0,
            lambda: f"tp ({tp}) and n_kv_heads ({nkv}) must divide one another; valid tp: "
                    f"{_choices(valid_tp(model))}")
    if model.n_layers % pp:
        raise InferSimError(f"pp ({pp}) must divide n_layers ({model.n_layers}); valid pp: "
                            f"{_choices(valid_pp(model))}")
    if model.is_moe:
        require(model.n_experts % ep == 0,
                lambda: f"ep ({ep}) must divide n_experts ({model.n_experts})")
        require((tp * other_ranks) % ep == 0,
                lambda: f"ep ({ep}) must divide the tp·cp·dp ranks ({tp * other_ranks}) it folds into")
    else:
        require(ep == 1, lambda: f"ep ({ep}) needs an MoE model; {model.name} is dense")


def divisors(n: int, limit: int | None = None) -> list[int]:
    """Divisors of ``n`` up to ``limit``, in O(sqrt(n))."""
    small, large = [], []
    i = 1
    while i * i <= n:
        if n % i == 0:
            small.append(i)
            if i != n // i:
                large.append(n // i)
        i += 1
    out = small + large[::-1]
    return [d for d in out if limit is None or d <= limit]


def valid_tp(model, limit: int | None = None) -> list[int]:
    nkv = model.n_kv_heads
    return [t for t in divisors(model.n_heads, limit) if nkv % t == 0 or t % nkv == 0]


def valid_pp(model, limit: int | None = None) -> list[int]:
    return divisors(model.n_layers, limit)


# ---------------------------------------------------------------------------------------------
# Struct of arrays
# ---------------------------------------------------------------------------------------------
_CODES = {
    "kv_shard_mode": KV_SHARD_MODES, "ffn_shard_scope": FFN_SHARD_SCOPES,
    "tp_placement": TP_PLACEMENTS, "cp_placement": CP_PLACEMENTS, "cp_ring_variant": CP_RING_VARIANTS,
}
FIELDS = ("tp", "pp", "dp", "cp", "ep") + tuple(_CODES) + ("microbatches",)


@dataclass(frozen=True)
class ParArrays:
    """Parallelism configs as parallel int64 arrays; string knobs are stored as indices into
    their choice tuples (e.g. ``kv_shard_mode`` 0 = head, 1 = seq, 2 = hybrid). ``batch``, when
    set, gives each row its own batch (concurrent sequences) instead of the workload's, so that a
    serving sweep over (config, batch) pairs is one array evaluation."""

    tp: np.ndarray
    pp: np.ndarray
    dp: np.ndarray
    cp: np.ndarray
    ep: np.ndarray
    kv_shard_mode: np.ndarray
    ffn_shard_scope: np.ndarray
    tp_placement: np.ndarray
    cp_placement: np.ndarray
    cp_ring_variant: np.ndarray
    microbatches: np.ndarray
    batch: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.tp)

    def with_batch(self, batch) -> "ParArrays":
        """The same configs, each with its own batch (broadcast to the rows)."""
        b = np.broadcast_to(np.asarray(batch, dtype=np.int64), (len(self),)).copy()
        return ParArrays(**{f: getattr(self, f) for f in FIELDS}, batch=b)

    @classmethod
    def from_configs(cls, configs: Sequence[Parallelism], workload) -> "ParArrays":
        """Configs as arrays, with their defaults (ring variant, micro-batches) resolved for
        ``workload``."""
        cols: dict[str, list[int]] = {f: [] for f in FIELDS}
        for p in configs:
            p = p.resolved(workload)
            for f in FIELDS:
                cols[f].append(field_code(p, f))
        table = np.array([cols[f] for f in FIELDS], dtype=np.int64).reshape(len(FIELDS), -1)
        return cls(**dict(zip(FIELDS, table)))     # one (fields, N) array, a contiguous row per field

    def take(self, idx) -> "ParArrays":
        return ParArrays(**{f: getattr(self, f)[idx] for f in FIELDS},
                         batch=None if self.batch is None else self.batch[idx])

    def config(self, i: int) -> Parallelism:
        kw = {}
        for f in FIELDS:
            v = int(getattr(self, f)[i])
            kw[f] = _CODES[f][v] if f in _CODES else v
        return Parallelism(**kw)

    @property
    def pes(self) -> np.ndarray:
        return self.tp * self.cp * self.pp * self.dp

    def columns(self) -> dict[str, np.ndarray]:
        """Each field as a column, choice fields as their names (vectorised, for tables)."""
        out = {}
        for f in FIELDS:
            v = getattr(self, f)
            out[f] = np.asarray(_CODES[f], dtype=object)[v] if f in _CODES else v
        return out


@lru_cache(maxsize=4096)
def _resolved(par: Parallelism, ring: str, microbatches: int) -> Parallelism:
    """``par`` with its ring variant and micro-batches made explicit (cached: a loop over
    workloads resolves the same few configs again and again; frozen, so sharing is safe)."""
    return replace(par, cp_ring_variant=ring, microbatches=microbatches)


def field_code(par: Parallelism, field: str) -> int:
    """The integer a field of ``par`` has in :class:`ParArrays` (choice index or degree)."""
    v = getattr(par, field)
    return _CODES[field].index(v) if field in _CODES else int(v)


def concat(parts: Sequence[ParArrays]) -> ParArrays:
    batch = None
    if any(p.batch is not None for p in parts):
        batch = np.concatenate([p.batch for p in parts])
    return ParArrays(**{f: np.concatenate([getattr(p, f) for p in parts]) for f in FIELDS},
                     batch=batch)


# ---------------------------------------------------------------------------------------------
# Placement: mesh order → strides → link levels each group spans
# ---------------------------------------------------------------------------------------------
def mesh_strides(par: ParArrays) -> dict[str, np.ndarray]:
    """Rank stride of each dimension under the placement's mesh order (table in module doc)."""
    tp, cp, dp, pp = par.tp, par.cp, par.dp, par.pp
    tps, cps = par.tp_placement == 1, par.cp_placement == 1
    # order (cube, pe): tp cp dp pp | (spread, pe): cp tp dp pp
    # order (cube, spread): tp dp pp cp | (spread, spread): dp pp cp tp
    s_tp = np.where(cps, np.where(tps, dp * pp * cp, 1), np.where(tps, cp, 1))
    s_cp = np.where(cps, np.where(tps, dp * pp, tp * dp * pp), np.where(tps, 1, tp))
    s_dp = np.where(cps, np.where(tps, 1, tp), tp * cp)
    s_pp = np.where(cps, np.where(tps, dp, tp * dp), tp * cp * dp)
    return {"tp": s_tp, "cp": s_cp, "dp": s_dp, "pp": s_pp}


def group_levels(stride: np.ndarray, size: np.ndarray, pes_per_cube: int,
                 pes_per_sip: int) -> np.ndarray:
    """Members of a group (ranks ``base + k·stride``, k < size) per link level: returns an
    int array of shape (3, n) with (members per cube, cubes per SiP, SiPs) whose product is
    ``size``. Exact for power-of-two strides and sizes; a close bound otherwise."""
    stride = np.asarray(stride, dtype=np.int64)
    size = np.asarray(size, dtype=np.int64)
    g0 = np.clip(pes_per_cube // stride, 1, None)
    g0 = np.minimum(g0, size)
    rest = -(-size // g0)
    step = stride * g0
    g1 = np.minimum(np.clip(pes_per_sip // step, 1, None), rest)
    g2 = -(-rest // g1)
    return np.stack([g0, g1, g2])
