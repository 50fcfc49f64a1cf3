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
  A MoE's DP replicas are not independent (attention data parallel: the expert layers span
  them), so every step waits for the replica that started the most prompts: the share of a
  prompt token's work its own replica does is carried at the busiest replica's count
  (:func:`busiest_share`, :func:`synced_replicas`), d·r becoming d·(1 + local·(busiest − 1))·r.

Tokens/s per user = 1 / TPOT (the stream each user sees); per PE = tok/s / PEs used.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from infersim.errors import choice, require, short_repr
from infersim.presets.runtime_presets import get_runtime
from infersim.serving import speculative
from infersim.serving.steps import (
    prepared_terms,  # noqa: F401  (re-exported for sla and users)
    step_terms,
)
from infersim.serving.steps import step as _step
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import Parallelism, ParArrays
from infersim.specs.speculation import Speculation
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


def chunk_workload(request: Request, chunk_tokens: int) -> Workload:
    """A chunk of the prompt, attending on average to half of the tokens before it."""
    chunk = int(min(chunk_tokens, request.new_tokens))
    return Workload("prefill", s_kv=chunk + (request.isl - chunk) // 2, s_q=chunk)


#: The tiny decode step the prompt increment is measured against.
WEIGHTS_ONLY = Workload("decode", s_kv=1)


def continuous_times(t_dec, t_chunk, t_w, request: Request, per_replica, chunk_tokens: int,
                     tokens_per_step: float = 1.0, synced=(1.0, 1.0)):
    """(TTFT, TPOT) of in-flight batching with chunked prefill from three step times (see the
    module docstring): ``t_dec`` the decode step of the batch at the mean context, ``t_chunk`` a
    prompt chunk of one sequence per replica, ``t_w`` a weights-only decode step of one
    sequence per replica; ``per_replica`` sequences in flight per replica. With speculative
    decoding ``t_dec`` is the speculative step and each step gains ``tokens_per_step`` = E
    tokens per sequence, so requests finish (and prompts arrive) E times as often per step:
    TPOT = (t_dec + d·E·r) / E."""
    return continuous_times_of(t_dec, t_chunk, t_w, request.new_tokens, request.osl, per_replica, chunk_tokens,
                               tokens_per_step, synced)


def continuous_times_of(t_dec, t_chunk, t_w, new, osl, per_replica, chunk_tokens: int, tokens_per_step=1.0,
                        synced=(1.0, 1.0)):
    """:func:`continuous_times` for ``new`` prompt tokens to prefill and ``osl`` output tokens
    per request, each a scalar or an array over rows. ``synced`` = (D, local) (:func:`synced_replicas`):
    D replicas wait for each other every step, so the ``local`` share of a prompt token's work
    (what its own replica does) is carried at the busiest replica's prompt count, the rest
    (routed experts, spread over the expert group) at the mean."""
    chunk = np.minimum(float(chunk_tokens), new)
    r = np.maximum(t_chunk - t_w, 0.0) / chunk                     # ns per extra prompt token
    demand = per_replica * new * tokens_per_step / osl             # prompt tokens per step
    budget = np.maximum(float(chunk_tokens), demand)
    replicas, local = synced
    busiest = 1.0 + local * (busiest_share(per_replica * tokens_per_step / osl, replicas) - 1.0)
    tpot = (t_dec + np.minimum(demand * busiest, budget) * r) / tokens_per_step
    ttft = np.ceil(new / budget) * (t_dec + np.minimum(budget, new) * r)
    return ttft, tpot


def busiest_share(lam, synced):
    """Prompts the busiest of ``synced`` replicas starts in a step over the mean ``lam`` per
    replica. Requests of one length finish evenly, so each replica starts ⌊λ⌋ or ⌈λ⌉ prompts
    (the integer distribution of mean λ with the least spread); the busiest of D starts
    ⌊λ⌋ + 1 − (1 − frac λ)^D: at λ = 0.44 and D = 8 (DeepSeek-R1 at 896 sequences per rank,
    OSL 2048), 0.99 prompts, 2.3x the mean. One replica (D = 1) starts λ: the ratio is 1."""
    lam = np.asarray(lam, dtype=float)
    whole = np.floor(lam)
    most = whole + 1.0 - (1.0 - (lam - whole)) ** synced
    return np.where((lam > 0) & (np.asarray(synced) > 1), most / np.where(lam > 0, lam, 1.0), 1.0)


def synced_replicas(model: ModelSpec, dp) -> tuple:
    """(D, local): replicas that wait for each other every step, and the share of a token's
    work its own replica does. A MoE's expert layers span every DP replica (attention
    data-parallel, experts over the whole group: ``cost.moe``), so each layer's all-to-all or
    all-reduce waits for the slowest replica, while a token's routed experts run over the group:
    local = 1 − routed-expert parameters a token uses / the parameters it multiplies (embedding
    lookup aside). Dense replicas run on their own: D = 1."""
    dp = np.asarray(dp, dtype=float)
    if not model.is_moe:
        return np.ones_like(dp), 1.0
    routed = model.n_moe_layers * model.n_experts_per_tok * model.dense_ffn_params(model.moe_ffn_hidden)
    return dp, 1.0 - routed / (model.active_param_count() - model.embedding_params())


def finite_run(tpot_full, tpot_last, requests, batch):
    """(tokens/s, mean TPOT) of a finite run: ``requests`` = N identical requests submitted at
    once to a deployment that runs at most ``batch`` = B of them (an offline benchmark such as
    ``trtllm-bench throughput`` or vLLM's ``benchmark_throughput``, a batch job). All start
    together and have the same lengths, so they run in k = ⌈N/B⌉ waves, the last of
    r = N − (k−1)·B requests; a wave lasts osl steps whatever its size (its prompts ride along
    its decode steps, as in the steady state), at TPOT(B) or, for the last, TPOT(r):

        makespan = osl · ((k−1)·TPOT(B) + TPOT(r)),   tok/s = N·osl / makespan,
        mean TPOT = ((k−1)·B·TPOT(B) + r·TPOT(r)) / N

    so a run of 1,500 requests at a batch of 1,459 (Llama 3.1 70B FP8, TP8 on H200) delivers
    about 10% less than the steady state: its last 41 requests decode alone for a whole wave, at
    a step a seventh as long. N = 0 is the steady state (tok/s = B / TPOT(B)). Each argument a
    scalar or an array over rows."""
    n, b = np.asarray(requests, dtype=float), np.asarray(batch, dtype=float)
    full, last = _waves(n, b)
    steady = n <= 0
    den = np.where(steady, 1.0, full * tpot_full + tpot_last)
    tok_s = np.where(steady, b / tpot_full, n / den) * 1e9
    tpot = np.where(steady, tpot_full, (full * b * tpot_full + last * tpot_last) / np.maximum(n, 1.0))
    return tok_s, tpot


def _waves(n: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(full waves k − 1, requests r = N − (k−1)·B in the last) of N requests at B at a time."""
    full = np.maximum(np.ceil(n / b) - 1.0, 0.0)
    return full, n - full * b


def last_wave(requests, batch):
    """The size r of a finite run's last wave (N − (⌈N/B⌉ − 1)·B; B where N ≤ 0)."""
    n, b = np.asarray(requests, dtype=float), np.asarray(batch, dtype=float)
    return np.where(n > 0, _waves(n, b)[1], b)


def one_per_replica(rows: ParArrays) -> ParArrays:
    """One sequence per replica in one micro-batch: the whole increment of a prompt token."""
    return replace(rows.with_batch(rows.dp), microbatches=np.ones(len(rows), dtype=np.int64))


def _prompt_steps(model, hw, rows, request, runtime, chunk_tokens, spec: Speculation | None = None,
                  knobs: dict | None = None):
    """(t_chunk, t_w): a prompt chunk and a weights-only step of one sequence per replica, the
    two steps whose difference prices a prompt token in continuous batching (they depend on the
    configs' replicas, not on their batch)."""
    one = one_per_replica(rows)
    chunk_wl = chunk_workload(request, chunk_tokens)
    t_chunk = _step(model, hw, one, chunk_wl, runtime, knobs)[0]["total_ns"]
    t_w = _step(model, hw, one, WEIGHTS_ONLY, runtime, knobs)[0]["total_ns"]
    if spec is not None and spec.k:     # the drafter prefills every prompt too
        t_chunk = t_chunk + speculative.draft_ns(model, hw, one, chunk_wl, spec, runtime)
        t_w = t_w + speculative.draft_ns(model, hw, one, WEIGHTS_ONLY, spec, runtime)
    return t_chunk, t_w


def _speculation(spec) -> Speculation | None:
    require(spec is None or isinstance(spec, Speculation),
            f"speculation must be a Speculation or None, got {spec!r}")
    require(spec is None or spec.k is not None,
            "speculation k='auto' is for sla_search, which chooses it; serve() needs a k")
    return spec


def _memory(model, hw, rows, request, rt, full, spec, knobs: dict | None = None):
    """(memory per PE, fits) with the drafter's weights and KV cache added when speculating."""
    if spec is None:
        return full.mem_bytes, full.fits(hw.pe_hbm_gb if knobs is None else knobs["pe_hbm_gb"], rt)
    extra = speculative.draft_memory(model, hw, rows, request.decode_full(), spec)
    p = full.mem_parts
    w, kv = p["weights"] + extra["weights"], p["kv_cache"] + extra["kv_cache"]
    need = rt.required_bytes(w, kv, p["workspace"])
    ok = (need <= hw.pe_hbm_gb * 1e9) & speculative.draft_fits(model, spec, rows)
    return w + kv + p["workspace"], ok


def evaluate_serving(model: ModelSpec, hw: HardwareSpec, configs: ParArrays, batches,
                     request: Request, runtime=None, batching: str = "continuous",
                     chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
                     speculation: Speculation | None = None, knobs: dict | None = None,
                     requests: int = 0, prompt_ns: tuple | None = None) -> dict[str, np.ndarray]:
    """TTFT, TPOT, E2E (ns), tokens/s (total, per PE, per user), memory and fit for every
    (config, batch) row: ``configs`` and ``batches`` are aligned arrays (one evaluation each
    of the decode, memory and prefill steps over all rows). ``speculation``: speculative
    decoding (:mod:`infersim.serving.speculative`); ``decode_ns`` is then the time per output
    token of the speculative step, t_step / E. ``knobs``: the six knobs as ``(H, 1)`` arrays over
    H candidates of ``hw``'s topology (the SLA co-design's shared evaluation): the times, rates and
    fits are then ``(H, N)``, the rest ``(N,)``; not with speculation. ``requests`` = N > 0
    (continuous batching): a finite run of N requests submitted at once, at most ``batch`` at a
    time (:func:`finite_run`): tokens/s and the mean TPOT of the run, and ``makespan_ns``.
    Continuous rows also return ``prompt_chunk_ns`` and ``weights_step_ns``, the two steps that
    price a prompt token (:func:`_prompt_steps`: they depend on the config, not on its batch);
    ``prompt_ns`` = (those two, per row) skips pricing them again (the SLA search's probes of
    configs it has priced)."""
    choice("batching", batching, BATCHING)
    require(knobs is None or speculation is None, "knob arrays are not supported with speculation")
    require(isinstance(chunk_tokens, (int, np.integer)) and chunk_tokens >= 1,
            f"chunk_tokens must be an integer >= 1, got {chunk_tokens!r}")
    require(isinstance(requests, (int, np.integer)) and not isinstance(requests, bool) and requests >= 0
            and (requests == 0 or batching == "continuous"),
            f"requests must be an integer >= 0 (0: the steady state; a finite run needs continuous "
            f"batching), got {requests!r}")
    spec = _speculation(speculation)
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
    t_dec, e = _decode_ns(model, hw, rows, request, spec, rt, knobs)
    full = step_terms(model, hw, rows, request.decode_full(), rt)     # its memory only
    if batching == "static":
        ttft = _step(model, hw, rows, request.prefill(), rt, knobs)[0]["total_ns"]
        if spec is not None and spec.k:
            ttft = ttft + speculative.draft_ns(model, hw, rows, request.prefill(), spec, rt)
        tpot = t_dec / e
        e2e = ttft + (request.osl - 1) * tpot
        tok_s = batch * request.osl / (e2e * 1e-9)
    else:
        t_chunk, t_w = (_prompt_steps(model, hw, rows, request, rt, chunk_tokens, spec, knobs)
                        if prompt_ns is None else prompt_ns)
        synced = synced_replicas(model, rows.dp)
        ttft, tpot = continuous_times(t_dec, t_chunk, t_w, request, per_replica, chunk_tokens, e, synced)
        tok_s = batch / (tpot * 1e-9)
        if requests:        # the last wave's decode step; its prompts cost what the others' do
            last = rows.with_batch(last_wave(requests, batch).astype(np.int64))
            t_last, e_last = _decode_ns(model, hw, last, request, spec, rt, knobs)
            _, tpot_last = continuous_times(t_last, t_chunk, t_w, request, np.ceil(last.batch / last.dp),
                                            chunk_tokens, e_last, synced)
            tok_s, tpot = finite_run(tpot, tpot_last, requests, batch)
        e2e = ttft + (request.osl - 1) * tpot
    pes = rows.pes.astype(float)
    mem, fits = _memory(model, hw, rows, request, rt, full, spec, knobs)
    out = {"ttft_ns": ttft, "tpot_ns": tpot, "e2e_ns": e2e, "tok_s": tok_s, "decode_ns": t_dec / e,
           "tok_s_per_pe": tok_s / pes, "tok_s_per_user": 1e9 / tpot, "pes": pes,
           "batch": batch, "mem_per_pe_bytes": mem, "fits": fits}
    if requests:
        out["makespan_ns"] = requests * request.osl / tok_s * 1e9
    if batching == "continuous":
        shape = np.shape(ttft)                  # (N,) or (H, N) like the times
        out["prompt_chunk_ns"], out["weights_step_ns"] = (np.array(np.broadcast_to(t, shape)) for t in (t_chunk, t_w))
    return out


def _decode_ns(model, hw, rows, request: Request, spec, rt, knobs):
    """(decode step at the mean context, tokens per step E): the plain step, or the speculative one."""
    if spec is None:
        return _step(model, hw, rows, request.decode_mean(), rt, knobs)[0]["total_ns"], 1.0
    return speculative.step_ns(model, hw, rows, request.decode_mean(), spec, rt)


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
        out.update({k: v for k, v in self.to_dict().items() if k not in ("par", "request", "speculation")})
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
    speculation: Speculation | None = None
    #: a finite run's requests (0: the steady state) and the time it takes to serve them all (s)
    requests: int = 0
    makespan_s: float = 0.0

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["speculation"] = self.speculation.to_dict() if self.speculation else None
        return out


def serve(model: ModelSpec, hw: HardwareSpec, par: Parallelism, request: Request, batch: int = 1,
          runtime=None, batching: str = "continuous",
          chunk_tokens: int = DEFAULT_CHUNK_TOKENS, speculation: Speculation | None = None,
          requests: int = 0) -> ServeResult:
    """TTFT, TPOT, end-to-end latency and throughput of ``par`` serving ``request`` with
    ``batch`` sequences in flight (over all DP replicas); see the module docstring.
    ``speculation``: speculative decoding (``Speculation(method, k, alpha)``, docs/serving.md).
    ``requests`` = N > 0: an offline run of N requests submitted at once, ``batch`` at a time
    (:func:`finite_run`): tokens/s and TPOT of the whole run, and its ``makespan_s``."""
    require(isinstance(batch, (int, np.integer)) and not isinstance(batch, bool) and 1 <= batch <= 1 << 20,
            f"batch must be an integer in 1..{1 << 20}, got {batch!r}")
    rt = get_runtime(runtime)
    wl = Workload("decode", s_kv=request.isl + request.osl, batch=int(batch))
    par.validate(model, hw, wl)
    configs = ParArrays.from_configs([par], wl).with_batch(batch)
    res = evaluate_serving(model, hw, configs, configs.batch, request, rt, batching, chunk_tokens,
                           speculation, requests=requests)
    makespan = float(res["makespan_ns"][0]) / 1e9 if requests else 0.0
    return ServeResult(**ServingMetrics.row(configs, res, 0), model=model.name, hardware=hw.name,
                       runtime=rt.name, batching=batching, request=request, speculation=speculation,
                       requests=int(requests), makespan_s=makespan)
