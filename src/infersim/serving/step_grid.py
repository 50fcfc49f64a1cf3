"""Step times of one deployment on a grid, for the request-level traffic simulator
(:mod:`infersim.serving.scheduler`): the cost model is evaluated once per deployment, the event loop
only interpolates.

A replica's step carries ``b`` decoding sequences at mean context ``m`` and prompt segments. Its
time is that of :mod:`infersim.serving.model`'s continuous-batching model, generalised to any mix:

    step = decode(b, m) + Σ_segments n · (inc(c)/c + a(p))

* ``decode(b, m)``: the cost model's decode step of ``b`` sequences per replica at context ``m``,
  evaluated for every integer ``b`` in 1..``max_seqs`` (one array evaluation per context) at a
  geometric grid of contexts and interpolated linearly in ``m`` (decode time is affine in the
  context between regime changes); ``decode(0, ·)`` = the weights-only step ``t_w`` (one
  sequence per replica at context 1), so a prefill-only step is ``t_w`` + its prompt tokens.
* a prompt token costs its increment over a step that already streams the weights, as in
  ``serve``: ``inc(c) = prefill(c tokens, no prefix) − t_w`` measured on the request's chunk
  ``c = min(token budget, new prompt tokens)`` (geometric grid over ``c``), plus the attention of
  its prefix ``a(p) = (prefill(n0 after p cached) − prefill(n0)) / n0`` per token (grid over ``p``,
  ``n0 = min(budget, 2048)``). A lone prompt therefore costs exactly ``prefill(c)`` at ``p = 0``.

The interpolation error against direct evaluation is checked in tests/test_traffic.py. The KV
capacity of a replica (tokens) comes from the same memory model as ``sla.max_batch``: memory is
affine in the sequences per replica.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace

import numpy as np

from infersim import cost
from infersim.errors import require
from infersim.presets.runtime_presets import get_runtime
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import Parallelism, ParArrays
from infersim.specs.workload import Workload

N_CTX = 14          # decode contexts of the grid (geometric 1 .. max context)
N_CHUNK = 14        # prompt chunk sizes of the grid (geometric 1 .. token budget)
N_PREFIX = 10       # prefix lengths of the grid (0, then geometric up to the max context)


def geometric_grid(hi: int, n: int, lo: int = 1) -> list[int]:
    """Distinct integers from ``lo`` to ``hi``, geometric: interpolation nodes."""
    return sorted({int(round(v)) for v in np.geomspace(lo, max(hi, lo), n)} | {lo, max(hi, lo)})


def _replica_rows(par: Parallelism, per_replica: np.ndarray, wl: Workload) -> ParArrays:
    """``par`` with ``per_replica`` sequences on every replica (batch = per_replica·dp), the
    micro-batches that ``serve`` and the SLA search use (min(pp, sequences per replica))."""
    base = ParArrays.from_configs([replace(par, microbatches=None)], Workload("decode", s_kv=wl.s_kv,
                                                                               batch=par.dp))
    rows = base.take(np.zeros(len(per_replica), dtype=np.int64)).with_batch(per_replica * par.dp)
    mb = np.where(rows.pp == 1, 1, np.minimum(rows.pp, per_replica))
    return replace(rows, microbatches=mb.astype(np.int64))


def _times(model, hw, rows, wl, runtime) -> np.ndarray:
    terms = cost.prepare(get_runtime(runtime).model_for(model), hw, rows, wl)
    return cost.evaluate(terms, hw.knobs(), runtime=runtime, breakdown=False)["total_ns"]


def _interp(grid: list[float], vals: list[float], x: float) -> float:
    """Piecewise-linear interpolation, constant extrapolation below, linear above."""
    j = min(max(bisect_right(grid, x) - 1, 0), len(grid) - 2)
    g0, g1 = grid[j], grid[j + 1]
    return vals[j] + (vals[j + 1] - vals[j]) * (x - g0) / (g1 - g0)


@dataclass
class StepTable:
    """The step-time grid of one replica of a deployment (ns) and its KV capacity (tokens)."""

    ctx: list[float]                 # decode context nodes
    dec: list[list[float]]           # dec[b][j]: b = 0..max_seqs decoding sequences per replica
    chunk: list[float]               # chunk-size nodes
    inc_per_tok: list[float]         # inc(c)/c at each chunk node
    prefix: list[float]              # prefix nodes
    attn_per_tok: list[float]        # a(p) at each prefix node
    t_w_ns: float                    # weights-only step
    kv_capacity_tokens: int          # per replica
    max_seqs: int

    def decode_ns(self, b: int, m: float) -> float:
        """One decode step of ``b`` sequences at mean context ``m`` (``b`` = 0: ``t_w``)."""
        if b == 0:
            return self.t_w_ns
        return _interp(self.ctx, self.dec[b], m)

    def decode_slope(self, b: int, m: float) -> float:
        """d decode_ns / d m at ``m`` (the step's growth per token of context)."""
        row, grid = self.dec[b], self.ctx
        j = min(max(bisect_right(grid, m) - 1, 0), len(grid) - 2)
        return (row[j + 1] - row[j]) / (grid[j + 1] - grid[j])

    def token_ns(self, chunk: int, prefix: float) -> float:
        """The increment of one prompt token of a request prefilled in chunks of ``chunk``
        tokens, attending to ``prefix`` cached tokens."""
        return _interp(self.chunk, self.inc_per_tok, chunk) + _interp(self.prefix, self.attn_per_tok, prefix)


def kv_capacity_tokens(model, hw: HardwareSpec, par: Parallelism, ref_len: int, runtime) -> int:
    """KV tokens one replica holds: (usable HBM − what does not grow with sequences) / bytes per
    token per PE, from two memory evaluations at ``ref_len``-token sequences (as ``max_batch``:
    the most full-length sequences is floor(capacity / ref_len))."""
    wl = Workload("decode", s_kv=ref_len)
    mem = [cost.prepare(model, hw, _replica_rows(par, np.array([k]), wl), wl).required_bytes(runtime)[0]
           for k in (1, 2)]
    slope = max(mem[1] - mem[0], 1.0)                    # bytes per PE per ref_len-token sequence
    return max(int((hw.pe_hbm_gb * 1e9 - (mem[0] - slope)) / slope * ref_len), 0)


def step_table(model: ModelSpec, hw: HardwareSpec, par: Parallelism, runtime, max_seqs: int,
               max_ctx: int, budget: int, ref_len: int) -> StepTable:
    """Evaluate the grids of the module docstring for one replica of ``par`` (about
    N_CTX + N_CHUNK + N_PREFIX + 2 array evaluations)."""
    require(max_seqs >= 1, f"max_num_seqs must be >= 1, got {max_seqs}")
    ctx = geometric_grid(max_ctx, N_CTX)
    per = np.arange(1, max_seqs + 1, dtype=np.int64)
    rows = _replica_rows(par, per, Workload("decode", s_kv=ctx[-1]))
    dec = np.stack([_times(model, hw, rows, Workload("decode", s_kv=c), runtime) for c in ctx], axis=1)
    one = _replica_rows(par, np.array([1]), Workload("decode", s_kv=1))
    t_w = float(_times(model, hw, one, Workload("decode", s_kv=1), runtime)[0])
    chunk = geometric_grid(budget, N_CHUNK)
    inc = [max(float(_times(model, hw, one, Workload("prefill", s_kv=c, s_q=c), runtime)[0]) - t_w, 0.0) / c
           for c in chunk]
    n0 = min(budget, 2048)
    prefix = [0] + geometric_grid(max(max_ctx, 2), N_PREFIX - 1)
    base = float(_times(model, hw, one, Workload("prefill", s_kv=n0, s_q=n0), runtime)[0])
    attn = [max(float(_times(model, hw, one, Workload("prefill", s_kv=n0 + p, s_q=n0), runtime)[0]) - base, 0.0)
            / n0 for p in prefix]
    cap = kv_capacity_tokens(model, hw, par, ref_len, runtime)
    dec_rows = [[t_w] * len(ctx)] + dec.tolist()
    return StepTable(ctx=[float(c) for c in ctx], dec=dec_rows, chunk=[float(c) for c in chunk],
                     inc_per_tok=inc, prefix=[float(p) for p in prefix], attn_per_tok=attn, t_w_ns=t_w,
                     kv_capacity_tokens=cap, max_seqs=max_seqs)
