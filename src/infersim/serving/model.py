"""The serving model: request-level TTFT, TPOT and throughput built on the step model (the
search over deployments is :mod:`infersim.serving.sla`; :mod:`infersim.serving` offers both).

A :class:`Request` has mean input and output lengths (and optionally the fraction of its prompt
already in a prefix cache). ``serve`` prices one deployment (a parallelism config and a
concurrency ``batch`` = sequences in flight over all DP replicas) with no new cost formula: it
composes steps of :mod:`infersim.cost`, evaluated for arrays of (config, batch) rows at once.

Decode time is linear in the context, so the mean over the steps from isl to isl + osl is the
step at the mean context isl + osl/2 (``tpot``). Memory must hold the KV cache of ``batch``
full-length sequences (isl + osl tokens). Two batching models (``batching``):

* ``static`` — a batch of ``batch`` requests arrives together: one prefill step of the whole batch
  (TTFT: every request waits for the batch's prefill), then osl − 1 decode steps at batch
  ``batch``; the next batch starts when this one ends.
      TTFT = prefill(batch × isl),  TPOT = decode(batch, isl + osl/2),
      E2E = TTFT + (osl − 1)·TPOT,  tok/s = batch·osl / E2E.
* ``continuous`` (in-flight batching with chunked prefill, the default; steady state) — ``batch``
  sequences decode while new requests replace finished ones, so each step also carries on
  average d = b·isl/osl prompt tokens per replica (b = batch/dp sequences per replica). Prompt
  tokens ride along a decode step that already streams the weights, so they cost only their
  increment r per token: r = (prefill(C) − decode(1, tiny context)) / C, measured on a chunk of
  C = ``chunk_tokens`` (the scheduler's per-step prompt budget, 8192 by default as in SGLang and
  vLLM V1; at least d). A prompt is processed in ⌈isl/C⌉ such steps.
      TPOT = decode(batch, isl + osl/2) + d·r,
      TTFT = ⌈isl/C⌉ · (decode(batch, isl + osl/2) + min(C, isl)·r),
      E2E = TTFT + (osl − 1)·TPOT,  tok/s = batch / TPOT.

Tokens/s per user = 1 / TPOT (the stream each user sees); per PE = tok/s / PEs used.
"""
from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, fields, replace

import numpy as np

from infersim import cost
from infersim.errors import choice, require, short_repr
from infersim.presets.runtime_presets import get_runtime
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import FIELDS, Parallelism, ParArrays
from infersim.specs.workload import MAX_TOKENS, Workload

BATCHING = ("continuous", "static")
DEFAULT_CHUNK_TOKENS = 8192
MAX_CONTEXT = 1 << 24


@dataclass(frozen=True)
class Request:
    """Mean request shape: ``isl`` input and ``osl`` output tokens; ``prefix_hit`` is the
    fraction of the prompt served from a prefix cache (its KV is not recomputed)."""

    isl: int
    osl: int
    prefix_hit: float = 0.0

    def __post_init__(self) -> None:
        for f in ("isl", "osl"):
            v = getattr(self, f)
            require(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 1 <= v <= MAX_CONTEXT,
                    f"{f} must be an integer in 1..{MAX_CONTEXT}, got {v!r}")
        require(isinstance(self.prefix_hit, (int, float)) and 0.0 <= self.prefix_hit < 1.0,
                f"prefix_hit must be a fraction in [0, 1), got {self.prefix_hit!r}")

    @property
    def new_tokens(self) -> int:
        """Prompt tokens prefilled per request (the rest hit the prefix cache)."""
        return max(1, round(self.isl * (1.0 - self.prefix_hit)))

    def prefill(self) -> Workload:
        return Workload("prefill", s_kv=self.isl, s_q=self.new_tokens)

    def decode_mean(self) -> Workload:
        return Workload("decode", s_kv=self.isl + max(self.osl // 2, 1))

    def decode_full(self) -> Workload:
        return Workload("decode", s_kv=self.isl + self.osl)

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


#: Prepared terms of recent (model, hardware less its knobs, rows, workload): the knob-free
#: stage of the cost model, shared by hardware candidates that differ only in knobs (an SLA
#: co-design sweep searches the same rows on every candidate).
_TERMS: OrderedDict = OrderedDict()
_TERMS_MAX_ROWS = 400_000       # rows kept over all entries (~0.5 KB of terms per row)


def prepared_terms(model, hw: HardwareSpec, rows: ParArrays, wl: Workload) -> cost.Terms:
    """``cost.prepare`` memoised on (model, hardware less its knobs, rows, workload)."""
    digest = hashlib.blake2b(digest_size=16)
    for f in FIELDS + ("batch",):
        col = getattr(rows, f)
        digest.update(np.ascontiguousarray(col).tobytes() if col is not None else b"-")
    key = (model, hw.without_knobs(), wl, digest.digest())
    if key in _TERMS:
        _TERMS.move_to_end(key)
        return _TERMS[key]
    terms = _TERMS[key] = cost.prepare(model, hw, rows, wl)
    while len(_TERMS) > 1 and sum(len(t) for t in _TERMS.values()) > _TERMS_MAX_ROWS:
        _TERMS.popitem(last=False)
    return terms


def _step(model, hw, rows: ParArrays, wl: Workload, runtime) -> tuple[dict, cost.Terms]:
    """One step of every row on ``hw`` (its knobs passed explicitly: the terms may have been
    prepared for a candidate with other knobs)."""
    terms = prepared_terms(model, hw, rows, wl)
    return cost.evaluate(terms, hw.knobs(), runtime=runtime, breakdown=False), terms


def chunk_workload(request: Request, chunk_tokens: int) -> Workload:
    """A chunk of the prompt, attending on average to half of the tokens before it."""
    chunk = int(min(chunk_tokens, request.new_tokens))
    return Workload("prefill", s_kv=chunk + (request.isl - chunk) // 2, s_q=chunk)


#: The tiny decode step the prompt increment is measured against.
WEIGHTS_ONLY = Workload("decode", s_kv=1)


def continuous_times(t_dec, t_chunk, t_w, request: Request, per_replica, chunk_tokens: int):
    """(TTFT, TPOT) of in-flight batching with chunked prefill from three step times (see the
    module docstring): ``t_dec`` the decode step of the batch at the mean context, ``t_chunk`` a
    prompt chunk of one sequence per replica, ``t_w`` a weights-only decode step of one
    sequence per replica; ``per_replica`` sequences in flight per replica."""
    new = request.new_tokens
    chunk = int(min(chunk_tokens, new))
    r = np.maximum(t_chunk - t_w, 0.0) / chunk                     # ns per extra prompt token
    demand = per_replica * new / request.osl                       # prompt tokens per step
    budget = np.maximum(float(chunk_tokens), demand)
    tpot = t_dec + demand * r
    ttft = np.ceil(new / budget) * (t_dec + np.minimum(budget, new) * r)
    return ttft, tpot


def one_per_replica(rows: ParArrays) -> ParArrays:
    """One sequence per replica in one micro-batch: the whole increment of a prompt token."""
    return replace(rows.with_batch(rows.dp), microbatches=np.ones(len(rows), dtype=np.int64))


def _continuous(model, hw, rows, request, runtime, chunk_tokens, t_dec, per_replica):
    one = one_per_replica(rows)
    t_chunk = _step(model, hw, one, chunk_workload(request, chunk_tokens), runtime)[0]["total_ns"]
    t_w = _step(model, hw, one, WEIGHTS_ONLY, runtime)[0]["total_ns"]
    return continuous_times(t_dec, t_chunk, t_w, request, per_replica, chunk_tokens)


def evaluate_serving(model: ModelSpec, hw: HardwareSpec, configs: ParArrays, batches,
                     request: Request, runtime=None, batching: str = "continuous",
                     chunk_tokens: int = DEFAULT_CHUNK_TOKENS) -> dict[str, np.ndarray]:
    """TTFT, TPOT, E2E (ns), tokens/s (total, per PE, per user), memory and fit for every
    (config, batch) row: ``configs`` and ``batches`` are aligned arrays (one evaluation each
    of the decode, memory and prefill steps over all rows)."""
    choice("batching", batching, BATCHING)
    require(isinstance(chunk_tokens, (int, np.integer)) and chunk_tokens >= 1,
            f"chunk_tokens must be an integer >= 1, got {chunk_tokens!r}")
    rt = get_runtime(runtime)
    try:
        b = np.asarray(batches)
    except (TypeError, ValueError):
        b = np.asarray([], dtype=object)
    require(b.dtype.kind in "iu" and b.ndim <= 1 and (b.ndim == 0 or len(b) in (1, len(configs)))
            and bool(np.all(b >= 1)) and bool(np.all(b <= MAX_TOKENS)),
            f"batches must be integers in 1..{MAX_TOKENS} (one per config, or one for all), got "
            f"{short_repr(batches)}")
    rows = configs.with_batch(b)
    batch = rows.batch.astype(float)
    per_replica = np.ceil(batch / rows.dp)
    dec, _ = _step(model, hw, rows, request.decode_mean(), rt)
    t_dec = dec["total_ns"]
    _, full = _step(model, hw, rows, request.decode_full(), rt)
    if batching == "static":
        ttft = _step(model, hw, rows, request.prefill(), rt)[0]["total_ns"]
        tpot = t_dec
        e2e = ttft + (request.osl - 1) * tpot
        tok_s = batch * request.osl / (e2e * 1e-9)
    else:
        ttft, tpot = _continuous(model, hw, rows, request, rt, chunk_tokens, t_dec, per_replica)
        e2e = ttft + (request.osl - 1) * tpot
        tok_s = batch / (tpot * 1e-9)
    pes = rows.pes.astype(float)
    return {"ttft_ns": ttft, "tpot_ns": tpot, "e2e_ns": e2e, "tok_s": tok_s, "decode_ns": t_dec,
            "tok_s_per_pe": tok_s / pes, "tok_s_per_user": 1e9 / tpot, "pes": pes,
            "batch": batch, "mem_per_pe_bytes": full.mem_bytes,
            "fits": full.fits(hw.pe_hbm_gb, rt)}


@dataclass(frozen=True)
class ServingMetrics:
    """What a deployment delivers: latencies (ms), tokens/s of the deployment, per PE and per
    user, memory per PE and whether it fits."""

    par: Parallelism
    batch: int
    ttft_ms: float
    tpot_ms: float
    e2e_ms: float
    tok_s: float
    tok_s_per_pe: float
    tok_s_per_user: float
    pes: int
    mem_per_pe_bytes: float
    fits: bool

    @staticmethod
    def row(rows: ParArrays, res: dict, i: int) -> dict:
        """The fields for row ``i`` of an :func:`evaluate_serving` result."""
        return dict(par=rows.config(int(i)), batch=int(rows.batch[i]),
                    ttft_ms=float(res["ttft_ns"][i]) / 1e6, tpot_ms=float(res["tpot_ns"][i]) / 1e6,
                    e2e_ms=float(res["e2e_ns"][i]) / 1e6, tok_s=float(res["tok_s"][i]),
                    tok_s_per_pe=float(res["tok_s_per_pe"][i]),
                    tok_s_per_user=float(res["tok_s_per_user"][i]), pes=int(res["pes"][i]),
                    mem_per_pe_bytes=float(res["mem_per_pe_bytes"][i]), fits=bool(res["fits"][i]))

    def meets(self, ttft_ms: float | None = None, tpot_ms: float | None = None) -> bool:
        return (self.fits and (ttft_ms is None or self.ttft_ms <= ttft_ms)
                and (tpot_ms is None or self.tpot_ms <= tpot_ms))

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["par"] = self.par.to_dict()
        if "request" in out:
            out["request"] = self.request.to_dict()
        return out

    def record(self) -> dict:
        """A flat table row: the parallelism fields, then the metrics (units in the names)."""
        out = {**self.par.to_dict()}
        out.update({k: v for k, v in self.to_dict().items() if k not in ("par", "request")})
        return out

    def to_pandas(self):
        from infersim.report.frames import frame
        return frame([self.record()])


@dataclass(frozen=True)
class ServeResult(ServingMetrics):
    """One deployment serving ``request`` at concurrency ``batch`` (see the module docstring)."""

    model: str = ""
    hardware: str = ""
    runtime: str = ""
    batching: str = ""
    request: Request | None = None


def serve(model: ModelSpec, hw: HardwareSpec, par: Parallelism, request: Request, batch: int = 1,
          runtime=None, batching: str = "continuous",
          chunk_tokens: int = DEFAULT_CHUNK_TOKENS) -> ServeResult:
    """TTFT, TPOT, end-to-end latency and throughput of ``par`` serving ``request`` with
    ``batch`` sequences in flight (over all DP replicas); see the module docstring."""
    require(isinstance(batch, (int, np.integer)) and not isinstance(batch, bool) and 1 <= batch <= 1 << 20,
            f"batch must be an integer in 1..{1 << 20}, got {batch!r}")
    rt = get_runtime(runtime)
    wl = Workload("decode", s_kv=request.isl + request.osl, batch=int(batch))
    par.validate(model, hw, wl)
    configs = ParArrays.from_configs([par], wl).with_batch(batch)
    res = evaluate_serving(model, hw, configs, configs.batch, request, rt, batching, chunk_tokens)
    return ServeResult(**ServingMetrics.row(configs, res, 0), model=model.name, hardware=hw.name,
                       runtime=rt.name, batching=batching, request=request)
