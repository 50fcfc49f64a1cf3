"""SLA search over deployments: the best (parallelism, batch) meeting TTFT/TPOT limits, the
throughput-vs-interactivity Pareto frontier, and the best disaggregated prefill/decode split.

The search space is every parallelism config of the system (:mod:`infersim.search.space`, one
micro-batch count per config: min(pp, sequences per replica)) times batch sizes per config:
b·dp for b = 1, 2, 4, … sequences per replica up to the most the HBM holds with full-length
sequences (found from two memory evaluations: memory is affine in the sequences per replica),
plus that limit. All (config, batch) rows are priced in one array evaluation
(:func:`infersim.serving.evaluate_serving`).

Disaggregated serving (:func:`best_disaggregated`) puts x prefill instances and y decode
instances on the same system (x·PEs_p + y·PEs_d ≤ PEs). A prefill instance batches ``b_p``
prompts per step: it serves R_p = b_p / period_p requests/s and a request's TTFT is its batch's
prefill plus the KV transfer; a decode instance with ``b_d`` sequences serves R_d = b_d /
(osl · TPOT_d) requests/s with no prefill interfering. The system serves min(x·R_p, y·R_d)
requests/s; the xPyD ratio that balances them is searched over the best prefill and decode
candidates. The KV cache of a request (isl tokens) crosses the slowest link level the
deployment spans, sent by the prefill instance's PEs in parallel:
t_kv = kv_cache_bytes(isl) / (PEs_p · B_level · link_eff_level) + α_level (``HardwareSpec.link_effs``).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, fields, replace
from functools import lru_cache

import numpy as np

from infersim.errors import InferSimError, choice, require, short_repr
from infersim.presets.hardware_presets import as_hardware
from infersim.presets.model_presets import as_model
from infersim.presets.runtime_presets import get_runtime
from infersim.search.pareto import pareto_front
from infersim.search.space import parallelism_space
from infersim.serving.model import (
    DEFAULT_CHUNK_TOKENS,
    Request,
    ServingMetrics,
    evaluate_serving,
    prepared_terms,
)
from infersim.serving.steps import step
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import FIELDS, Parallelism, ParArrays, concat, field_code
from infersim.specs.speculation import AUTO_KS, Speculation
from infersim.specs.workload import Workload

OBJECTIVES = ("tok_s_per_pe", "tok_s", "tok_s_per_user")
DEFAULT_BATCH_CAP = 2048
#: The least gain in tokens/s per PE for which the disaggregated deployment is the answer: below it
#: the two are within the model's error and the aggregated replica, the simpler one, is picked.
SPLIT_MIN_GAIN = 0.03


class NoDeployment(InferSimError):
    """Not even one sequence of the request fits any parallelism of the hardware."""


@dataclass(frozen=True)
class ServingPoint(ServingMetrics):
    """A (parallelism, batch) row of the search and whether it meets the SLA."""

    meets_sla: bool = False


def serving_space(model: ModelSpec, hw: HardwareSpec, request: Request,
                  single_replica: bool = False) -> ParArrays:
    """Every parallelism config of ``hw`` for this request's decode (one row per config);
    ``single_replica``: only dp = 1 (a replica is the deployment unit: more replicas scale
    tokens/s and PEs alike, so per-PE numbers are those of one). The space depends on the
    topology, not the knobs: cached for the candidates of a co-design sweep."""
    return _serving_space(model, hw.without_knobs(), request, single_replica)


@lru_cache(maxsize=8)
def _serving_space(model: ModelSpec, hw: HardwareSpec, request: Request, single_replica: bool) -> ParArrays:
    wl = Workload("decode", s_kv=request.isl + request.osl, batch=hw.n_pes)
    space, _ = parallelism_space(model, hw, wl)
    keep = (space.pp == 1) | (space.microbatches == 1)
    return space.take(np.flatnonzero(keep & (space.dp == 1) if single_replica else keep))


def _with_default_microbatches(rows: ParArrays) -> ParArrays:
    per_replica = -(-rows.batch // rows.dp)
    return replace(rows, microbatches=np.where(rows.pp == 1, 1, np.minimum(rows.pp, per_replica)))


def max_batch(model: ModelSpec, hw: HardwareSpec, configs: ParArrays, request: Request,
              cap: int = DEFAULT_BATCH_CAP, runtime=None) -> np.ndarray:
    """Most sequences (over all replicas) each config holds with full-length KV, at most ``cap``
    per replica (an engine's per-instance limit: DP8 under a cap of 2048 holds up to 16,384);
    0 where not even one sequence per replica fits. Memory is affine in sequences per replica,
    so two evaluations give it; the result is checked and stepped down where rounding lies."""
    wl = request.decode_full()
    rt = get_runtime(runtime)
    usable = hw.pe_hbm_gb * 1e9
    mem = [prepared_terms(model, hw, _with_default_microbatches(configs.with_batch(configs.dp * k)),
                          wl).required_bytes(rt) for k in (1, 2)]
    slope = np.maximum(mem[1] - mem[0], 1.0)
    per_replica = np.floor((usable - mem[0]) / slope) + 1
    per_replica = np.clip(per_replica, 0, cap)
    out = (per_replica * configs.dp).astype(np.int64)
    for _ in range(3):          # workspace and micro-batches make memory only nearly affine
        ok = out > 0
        rows = _with_default_microbatches(configs.take(np.flatnonzero(ok)).with_batch(out[ok]))
        bad = prepared_terms(model, hw, rows, wl).required_bytes(rt) > usable   # every chunk asks again
        if not bad.any():
            break
        idx = np.flatnonzero(ok)[bad]
        out[idx] = np.maximum(out[idx] - configs.dp[idx], 0)
    return out


def prompt_steps_by_config(res: dict, cfg: np.ndarray, n_cfg: int) -> tuple | None:
    """Per config index (of ``n_cfg``), the prompt-chunk and weights-only steps of continuous
    rows ``res`` of configs ``cfg`` (:func:`evaluate_serving` returns them; they do not depend on
    the batch, so a probe of a priced config reuses them: ``prompt_ns``); None for static rows."""
    if "prompt_chunk_ns" not in res:
        return None
    out = tuple(np.zeros(n_cfg) for _ in range(2))
    for p, key in zip(out, ("prompt_chunk_ns", "weights_step_ns")):
        p[cfg] = res[key]
    return out


def concat_results(parts: list[dict]) -> dict:
    """Per-row result dicts of consecutive row sets as one (each column concatenated in order)."""
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def batch_rows(configs: ParArrays, bmax: np.ndarray, ends_only: bool = False
               ) -> tuple[ParArrays, np.ndarray, np.ndarray]:
    """(config, batch) rows: b·dp for b = 1, 2, 4, … sequences per replica up to ``bmax``,
    plus ``bmax`` itself (``ends_only``: the two ends, one sequence per replica and ``bmax``);
    returns the rows, their batches and their config indices."""
    bmax = np.asarray(bmax, dtype=np.int64)
    sel = np.flatnonzero(bmax >= configs.dp)
    dp, top = np.asarray(configs.dp, dtype=np.int64)[sel], bmax[sel]
    # the ladder dp·2^k, k < K with K = ⌊log2(top // dp)⌋ + 1 (just the first rung for ends_only), then top
    rungs = np.ones(len(sel), np.int64) if ends_only else np.floor(np.log2(top // dp)).astype(np.int64) + 1
    extra = top != dp << (rungs - 1)                     # top is not itself the last rung
    n = rungs + extra
    idx = np.repeat(sel, n)
    k = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
    batches = np.repeat(dp, n) << k
    last = np.cumsum(n)[extra] - 1
    batches[last] = top[extra]
    return configs.take(idx), batches, idx


def _points(rows: ParArrays, res: dict, meets: np.ndarray, idx) -> list[ServingPoint]:
    return [ServingPoint(**ServingMetrics.row(rows, res, i), meets_sla=bool(meets[i]))
            for i in np.asarray(idx, dtype=np.int64)]


@dataclass(frozen=True)
class DisaggResult:
    """x prefill instances (``prefill_par``, ``prefill_batch`` prompts per step) and y decode
    instances (``decode_par``, ``decode_batch`` sequences) on one system: "xPyD"."""

    n_prefill: int
    prefill_par: Parallelism
    prefill_batch: int
    n_decode: int
    decode_par: Parallelism
    decode_batch: int
    pes: int
    ttft_ms: float
    tpot_ms: float
    kv_transfer_ms: float
    link: str
    tok_s: float
    tok_s_per_pe: float
    tok_s_per_user: float
    prefill_utilisation: float      # share of the prefill pool's capacity the decode pool uses
    decode_utilisation: float

    @property
    def ratio(self) -> str:
        return f"{self.n_prefill}P{self.n_decode}D"

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out.update(prefill_par=self.prefill_par.to_dict(), decode_par=self.decode_par.to_dict(),
                   ratio=self.ratio)
        return out


@dataclass(frozen=True)
class SLAResult:
    model: str
    hardware: str
    runtime: str
    batching: str
    request: Request
    ttft_limit_ms: float | None
    tpot_limit_ms: float | None
    objective: str
    best: ServingPoint | None            # the best row meeting the SLA (None: nothing does)
    nearest_miss: ServingPoint | None    # when nothing meets it: the least violating fitting row
    pareto: list[ServingPoint]           # tok/s per user vs tok/s per PE, non-dominated
    disaggregated: DisaggResult | None
    n_evaluated: int
    n_meeting: int
    elapsed_s: float
    limit: str = ""                      # what stops the best config from a larger batch
    speculation: Speculation | None = None   # the drafter of every row (k chosen when it was auto)

    def split_wins(self) -> bool:
        """Whether the answer is the disaggregated deployment: under the tok_s_per_pe objective, when
        no aggregated one meets the SLA or the split serves more than :data:`SPLIT_MIN_GAIN` more
        tokens/s per PE. A smaller gain is below the model's error (its bands are ±10–20%), and the
        aggregated replica is the simpler deployment (fewer PEs, no KV transfer, a shorter TTFT)."""
        d, b = self.disaggregated, self.best
        return d is not None and self.objective == "tok_s_per_pe" and (
            b is None or d.tok_s_per_pe > (1.0 + SPLIT_MIN_GAIN) * b.tok_s_per_pe)

    def comparison(self) -> str:
        """One sentence: which deployment wins on tokens/s per PE, and by how much."""
        agg, dis = self.best, self.disaggregated
        if agg is None and dis is None:
            return "nothing meets the SLA, aggregated or disaggregated"
        if dis is None:
            return "aggregated serving wins: no disaggregated split meets the SLA"
        if agg is None:
            return f"disaggregated {dis.ratio} wins: no aggregated deployment meets the SLA"
        gain = dis.tok_s_per_pe / agg.tok_s_per_pe - 1.0
        if 0 < gain <= SPLIT_MIN_GAIN:
            return (f"aggregated serving is the pick: disaggregated {dis.ratio} gains only {gain * 100:.1f}% "
                    f"tokens/s per PE (within the {SPLIT_MIN_GAIN:.0%} the model cannot tell apart) for "
                    f"{dis.pes} PEs instead of "
                    f"{agg.pes} and TTFT {dis.ttft_ms:,.0f} ms instead of {agg.ttft_ms:,.0f} ms")
        who = "disaggregated " + dis.ratio if gain > 0 else "aggregated"
        return f"{who} serving wins by {abs(gain) * 100:.0f}% tokens/s per PE"

    def to_pandas(self, table: str = "pareto"):
        """``pareto`` (the frontier), ``best`` (the answer, the nearest miss and the
        disaggregated deployment, one row each) as a DataFrame; units in the column names."""
        from infersim.errors import choice
        from infersim.report.frames import frame

        choice("table", table, ("pareto", "best"))
        if table == "pareto":
            return frame([p.record() for p in self.pareto])
        rows = [{"deployment": "best", **self.best.record()} if self.best else None,
                {"deployment": "nearest miss", **self.nearest_miss.record()} if self.nearest_miss else None,
                {"deployment": "disaggregated " + self.disaggregated.ratio, **self.disaggregated.to_dict()}
                if self.disaggregated else None]
        return frame([r for r in rows if r])

    def to_parquet(self, path) -> str:
        from infersim.report.frames import to_parquet
        return to_parquet(self.to_pandas("pareto"), path)

    def plot(self):
        from infersim.report.plots import interactivity_pareto
        return interactivity_pareto(self)

    def to_dict(self) -> dict:
        return {"model": self.model, "hardware": self.hardware, "runtime": self.runtime,
                "batching": self.batching, "request": self.request.to_dict(),
                "ttft_limit_ms": self.ttft_limit_ms, "tpot_limit_ms": self.tpot_limit_ms,
                "objective": self.objective, "comparison": self.comparison(),
                "best": self.best.to_dict() if self.best else None,
                "nearest_miss": self.nearest_miss.to_dict() if self.nearest_miss else None,
                "disaggregated": self.disaggregated.to_dict() if self.disaggregated else None,
                "pareto": [p.to_dict() for p in self.pareto],
                "n_evaluated": self.n_evaluated, "n_meeting": self.n_meeting,
                "elapsed_s": self.elapsed_s,
                "speculation": self.speculation.to_dict() if self.speculation else None}


def limit_ms(name: str, v) -> float | None:
    """A TTFT/TPOT limit: None (no limit) or a positive number of milliseconds (one-line error)."""
    if v is None:
        return None
    require(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0,
            f"{name} must be a positive number of milliseconds, got {v!r}")
    return float(v)


def serving_rows(model, hw, request, cap, runtime=None,
                 single_replica: bool = False) -> tuple[ParArrays, np.ndarray, np.ndarray]:
    """The (config, batch) rows of the search with micro-batches resolved per batch, the
    index of each row's config, and each config's largest batch that fits."""
    configs = serving_space(model, hw, request, single_replica)
    bmax = max_batch(model, hw, configs, request, cap, runtime)
    rows, batches, cfg = batch_rows(configs, bmax)
    return _with_default_microbatches(rows.with_batch(batches)), cfg, bmax[cfg]


def _meets(res: dict, ttft_ms, tpot_ms) -> np.ndarray:
    return (res["fits"] & (res["ttft_ns"] <= (ttft_ms or np.inf) * 1e6)
            & (res["tpot_ns"] <= (tpot_ms or np.inf) * 1e6))


def _excess(res: dict, ttft_ms, tpot_ms) -> np.ndarray:
    """How far each row is from the SLA: max(TTFT / limit, TPOT / limit), ≤ 1 meets; inf where
    the row does not fit."""
    e = np.maximum(res["ttft_ns"] / ((ttft_ms or np.inf) * 1e6), res["tpot_ns"] / ((tpot_ms or np.inf) * 1e6))
    return np.where(res["fits"], e, np.inf)


def _brackets(rows: ParArrays, cfg, bmax, res, ttft_ms, tpot_ms):
    """Per config: the largest meeting and the smallest failing batch per replica of the grid
    (lo, hi) and the SLA excess at each (v_lo, v_hi); the first row of every config."""
    meets, v = _meets(res, ttft_ms, tpot_ms), _excess(res, ttft_ms, tpot_ms)
    per = rows.batch // rows.dp
    n_cfg = int(cfg.max()) + 1 if len(cfg) else 0
    lo = np.zeros(n_cfg, dtype=np.int64)
    np.maximum.at(lo, cfg[meets], per[meets])
    hi = np.full(n_cfg, np.iinfo(np.int64).max)         # smallest failing (or unfitting) one
    np.minimum.at(hi, cfg, bmax // rows.dp + 1)
    np.minimum.at(hi, cfg[~meets], per[~meets])
    v_lo, v_hi = np.zeros(n_cfg), np.full(n_cfg, np.inf)
    at_lo, at_hi = meets & (per == lo[cfg]), ~meets & (per == hi[cfg])
    v_lo[cfg[at_lo]], v_hi[cfg[at_hi]] = v[at_lo], v[at_hi]
    _, first = np.unique(cfg, return_index=True)
    row_of = np.zeros(n_cfg, dtype=np.int64)
    row_of[cfg[first]] = first
    return lo, hi, v_lo, v_hi, row_of


def _guesses(lo, hi, v_lo, v_hi, bisect):
    """Next probe per config: where the excess, linear between the bracket ends, reaches 1
    (TPOT and TTFT are nearly affine in the batch), or the midpoint after a slow step."""
    frac = np.where(np.isfinite(v_hi) & (v_hi > v_lo), (1.0 - v_lo) / (v_hi - v_lo), 0.5)
    g = lo + np.floor(np.where(bisect, 0.5, frac) * (hi - lo)).astype(np.int64)
    return np.clip(g, lo + 1, hi - 1)


def _refine(evaluate, rows: ParArrays, cfg, bmax, res, ttft_ms, tpot_ms, best_only: bool = False,
            owner: np.ndarray | None = None):
    """Per config, search the largest batch meeting the SLA between its largest meeting grid
    batch and the next grid batch (TTFT and TPOT grow with the batch) and return those rows;
    tokens/s per PE grows with the batch, so that batch is the config's best. Each round probes
    the interpolated crossing and the batch above it (one round when the guess is right),
    bisecting after a step that did not halve the bracket: exact, like plain bisection.
    ``best_only``: skip configs that cannot beat the best meeting row on tokens/s per PE (no
    grid row of theirs, meeting or not, does: exact for the best, not for the frontier), and stop
    refining one as soon as the tokens/s at its failing end no longer beats the best found.
    ``owner``: per config, the hardware candidate it belongs to (the searches of many candidates
    run as one: the best is then each candidate's own); ``evaluate(probe, configs)`` gets the
    config index of every probe row. Returns the new rows and their configs, or None."""
    cfg = np.asarray(cfg, dtype=np.int64)
    meets = _meets(res, ttft_ms, tpot_ms)
    lo, hi, v_lo, v_hi, row_of = _brackets(rows, cfg, bmax, res, ttft_ms, tpot_ms)
    has = lo > 0
    own = np.zeros(len(lo), dtype=np.int64) if owner is None else np.asarray(owner)
    upper = np.zeros(len(lo))                     # tokens/s per PE no batch below hi can beat
    best = np.full(int(own.max()) + 1 if len(own) else 1, -np.inf)
    if best_only:
        np.maximum.at(upper, cfg, res["tok_s_per_pe"])
        np.maximum.at(best, own[cfg[meets]], res["tok_s_per_pe"][meets])
        has &= upper > best[own]
    bisect = np.zeros(len(lo), dtype=bool)
    active = np.flatnonzero(has & (hi > lo + 1))
    while len(active):
        a, width = active, hi[active] - lo[active]
        g = _guesses(lo[a], hi[a], v_lo[a], v_hi[a], bisect[a])
        g2 = np.minimum(g + 1, hi[a] - 1)
        base = rows.take(row_of[a])
        probe = _with_default_microbatches(concat([base.with_batch(g * base.dp), base.with_batch(g2 * base.dp)]))
        r = evaluate(probe, np.concatenate([a, a]))
        ok, v = _meets(r, ttft_ms, tpot_ms), _excess(r, ttft_ms, tpot_ms)
        n = len(a)
        for sl, b in ((slice(0, n), g), (slice(n, 2 * n), g2)):
            up = ok[sl] & (b > lo[a])
            down = ~ok[sl] & (b < hi[a])
            lo[a[up]], v_lo[a[up]] = b[up], v[sl][up]
            hi[a[down]], v_hi[a[down]] = b[down], v[sl][down]
            if best_only:        # each round's meeting probes raise the bound, failing ones lower the upper
                np.maximum.at(best, own[a[ok[sl]]], r["tok_s_per_pe"][sl][ok[sl]])
                upper[a[down]] = r["tok_s_per_pe"][sl][down]
        bisect[a] = 2 * (hi[a] - lo[a]) > width
        keep = (upper[a] > best[own[a]]) if best_only else True
        active = a[(hi[a] > lo[a] + 1) & keep]
    # configs whose best batch is not already one of their grid rows
    on_grid = np.zeros(len(lo), dtype=bool)
    on_grid[cfg[rows.batch // rows.dp == lo[cfg]]] = True
    new = np.flatnonzero(has & ~on_grid)
    if not len(new):
        return None
    base = rows.take(row_of[new])
    return _with_default_microbatches(base.with_batch(lo[new] * base.dp)), new


def sla_search(model: ModelSpec, hw: HardwareSpec, request: Request, ttft_ms: float | None = None,
               tpot_ms: float | None = None, objective: str = "tok_s_per_pe", runtime=None,
               batching: str = "continuous", chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
               batch_cap: int = DEFAULT_BATCH_CAP, disaggregated: bool = True,
               single_replica: bool = False, speculation: Speculation | None = None) -> SLAResult:
    """The best (parallelism, batch) serving ``request`` within the TTFT/TPOT limits (ms) by
    ``objective``, the Pareto frontier of tokens/s per user vs per PE, and the best
    disaggregated prefill/decode deployment (see the module docstring). ``single_replica``
    searches dp = 1 deployments only (the co-design sweep's unit) and, with the tok_s_per_pe
    objective, refines only the batches that can change the best (the frontier is then the
    grid's). ``speculation``: serve with speculative decoding; with ``k=None`` every k of
    ``AUTO_KS`` (0 = none) is searched and the best answer by ``objective`` is returned."""
    if speculation is not None and speculation.k is None:
        return _best_k(model, hw, request, speculation, ttft_ms=ttft_ms, tpot_ms=tpot_ms,
                       objective=objective, runtime=runtime, batching=batching,
                       chunk_tokens=chunk_tokens, batch_cap=batch_cap, disaggregated=disaggregated,
                       single_replica=single_replica)
    choice("objective", objective, OBJECTIVES)
    ttft_ms, tpot_ms = limit_ms("ttft_ms", ttft_ms), limit_ms("tpot_ms", tpot_ms)
    require(isinstance(batch_cap, (int, np.integer)) and not isinstance(batch_cap, (bool, np.bool_))
            and 1 <= batch_cap <= 1 << 20,
            f"batch_cap must be an integer in 1..{1 << 20} (sequences per replica), got {short_repr(batch_cap)}")
    for name, flag in (("disaggregated", disaggregated), ("single_replica", single_replica)):
        require(isinstance(flag, (bool, np.bool_)), f"{name} must be true or false, got {short_repr(flag)}")
    model, hw = as_model(model), as_hardware(hw)
    require(isinstance(request, Request), f"request must be a Request(isl=..., osl=...), got {short_repr(request)}")
    rt = get_runtime(runtime)
    t0 = time.perf_counter()
    rows, cfg, bmax = serving_rows(model, hw, request, batch_cap, rt, single_replica)
    if not len(rows):
        raise NoDeployment(f"no parallelism of {model.name} holds one {request.isl}+{request.osl}-token "
                            f"sequence on {hw.name}")
    res = evaluate_serving(model, hw, rows, rows.batch, request, rt, batching, chunk_tokens, speculation)
    prompt = prompt_steps_by_config(res, cfg, int(cfg.max()) + 1)

    def evaluate(r, cfgs):        # a probe of configs already priced reuses their prompt steps
        return evaluate_serving(model, hw, r, r.batch, request, rt, batching, chunk_tokens, speculation,
                                prompt_ns=None if prompt is None else tuple(p[cfgs] for p in prompt))
    extra = _refine(evaluate, rows, cfg, bmax, res, ttft_ms, tpot_ms,
                    best_only=single_replica and objective == "tok_s_per_pe")
    if extra is not None:
        rows, more = concat([rows, extra[0]]), evaluate(*extra)
        res = concat_results([res, more])
    return _result(model, hw, request, rows, res, ttft_ms, tpot_ms, objective, rt, batching,
                   disaggregated, t0, speculation, batch_cap)


def _score(r: SLAResult, objective: str) -> float:
    """The objective of an answer (the better of aggregated and disaggregated on tokens/s per PE;
    -inf when nothing meets the SLA)."""
    vals = [getattr(r.best, objective)] if r.best else []
    if r.disaggregated and objective == "tok_s_per_pe":
        vals.append(r.disaggregated.tok_s_per_pe)
    return max(vals) if vals else -math.inf


def _best_k(model, hw, request, spec: Speculation, **kw) -> SLAResult:
    """The SLA search for every k of ``AUTO_KS``; the answer with the best objective (the first,
    smallest k on ties), its ``speculation`` the chosen k (None: plain decode won)."""
    t0 = time.perf_counter()
    best = None
    for k in AUTO_KS:
        r = sla_search(model, hw, request, speculation=spec.with_k(k) if k else None, **kw)
        if best is None or _score(r, kw["objective"]) > _score(best, kw["objective"]):
            best = r
    return replace(best, elapsed_s=time.perf_counter() - t0)


def best_or_miss(rows: ParArrays, res: dict, ttft_ms, tpot_ms, objective: str):
    """(best meeting row, None), or (None, the fitting row nearest the SLA), or (None, None):
    the best by ``objective``, ties to the lower TPOT then fewer PEs; nearest by the excess."""
    fits, meets = res["fits"], _meets(res, ttft_ms, tpot_ms)
    if meets.any():
        cand = np.flatnonzero(meets)
        i = cand[np.lexsort((res["pes"][cand], res["tpot_ns"][cand], -res[objective][cand]))[0]]
        return _points(rows, res, meets, [i])[0], None
    if fits.any():
        cand = np.flatnonzero(fits)
        viol = np.maximum(res["ttft_ns"][cand] / ((ttft_ms or np.inf) * 1e6),
                          res["tpot_ns"][cand] / ((tpot_ms or np.inf) * 1e6))
        return None, _points(rows, res, meets, [cand[np.argmin(viol)]])[0]
    return None, None


def _result(model, hw, request, rows, res, ttft_ms, tpot_ms, objective, rt, batching,
            disaggregated, t0, speculation=None, batch_cap: int = DEFAULT_BATCH_CAP) -> SLAResult:
    """The best meeting row (or the nearest miss), the Pareto frontier and the split."""
    fits, meets = res["fits"], _meets(res, ttft_ms, tpot_ms)
    best, miss = best_or_miss(rows, res, ttft_ms, tpot_ms, objective)
    fit_idx = np.flatnonzero(fits)
    front = fit_idx[pareto_front(-res["tok_s_per_user"][fit_idx], -res["tok_s_per_pe"][fit_idx])]
    dis = best_disaggregated(model, hw, request, ttft_ms, tpot_ms, rt, rows=rows, decode=res,
                             speculation=speculation) if disaggregated else None
    return SLAResult(model=model.name, hardware=hw.name, runtime=rt.name, batching=batching,
                     request=request, ttft_limit_ms=ttft_ms, tpot_limit_ms=tpot_ms, objective=objective,
                     best=best, nearest_miss=miss, pareto=_points(rows, res, meets, front),
                     disaggregated=dis, n_evaluated=len(rows), n_meeting=int(meets.sum()),
                     elapsed_s=time.perf_counter() - t0,
                     limit=_limit_of(rows, res, best, ttft_ms, tpot_ms, batch_cap) if best else "",
                     speculation=speculation)


def _limit_of(rows: ParArrays, res: dict, best: ServingPoint, ttft_ms, tpot_ms,
              batch_cap: int = DEFAULT_BATCH_CAP) -> str:
    """Why the best config does not serve more sequences: the next larger batch of the same
    config breaks the TPOT or TTFT limit, the batch cap stops it, or no larger batch fits in HBM."""
    same = np.ones(len(rows), dtype=bool)
    for f in FIELDS:
        if f != "microbatches":
            same &= getattr(rows, f) == field_code(best.par, f)
    larger = np.flatnonzero(same & (rows.batch > best.batch))
    if not len(larger):
        if -(-best.batch // best.par.dp) >= batch_cap:
            return (f"batch cap: {batch_cap:,} sequences per replica (an engine's per-instance limit; "
                    "batch_cap= / --batch-cap raises it)")
        return "memory: the KV cache of more full-length sequences does not fit in HBM"
    i = larger[np.argmin(rows.batch[larger])]
    nxt = int(rows.batch[i])
    if tpot_ms is not None and res["tpot_ns"][i] > tpot_ms * 1e6:
        return f"TPOT: at batch {nxt} a token takes {res['tpot_ns'][i] / 1e6:.1f} ms > {tpot_ms:g} ms"
    if ttft_ms is not None and res["ttft_ns"][i] > ttft_ms * 1e6:
        return f"TTFT: at batch {nxt} the first token takes {res['ttft_ns'][i] / 1e6:.0f} ms > {ttft_ms:g} ms"
    return f"objective: batch {nxt} serves fewer tokens/s per PE"



LINK_NAMES = ("intra-cube", "inter-cube", "inter-SiP")


def kv_link(hw: HardwareSpec, pes: int) -> tuple[int, float, float]:
    """(level, GB/s per PE, alpha ns) of the slowest link a deployment of ``pes`` PEs spans."""
    level = 0 if pes <= hw.pes_per_cube else (1 if pes <= hw.pes_per_sip else 2)
    return level, hw.link_bw_gbs()[level], hw.link_alpha_ns()[level]


def _prefill_candidates(model, hw, request, runtime, per_replica=(1, 2, 4, 8, 16, 32, 64)):
    """Prefill instances: every config × prompts per step, with latency, period and fit."""
    configs = serving_space(model, hw, request)
    k = np.repeat(np.asarray(per_replica, dtype=np.int64), len(configs))
    rows = configs.take(np.tile(np.arange(len(configs)), len(per_replica)))
    rows = _with_default_microbatches(rows.with_batch(rows.dp * k))
    res, terms = step(model, hw, rows, request.prefill(), runtime)
    ok = terms.fits(hw.pe_hbm_gb, runtime)
    return rows.take(np.flatnonzero(ok)), res["total_ns"][ok], res["period_ns"][ok]


def _top_per_size(score: np.ndarray, pes: np.ndarray, top: int) -> np.ndarray:
    """Indices of the ``top`` highest scores among the rows of each distinct PE count."""
    order = np.argsort(-score, kind="stable")
    return np.concatenate([order[pes[order] == n][:top] for n in np.unique(pes)])


def _best_pair(hw, request, kv_bytes, pre, dec, ttft_ms, top: int):
    """Search x prefill and y decode instances over the ``top`` most efficient candidates of
    each instance size (the most efficient overall may be too large to pair with any other)."""
    p_rows, p_lat, p_rate = pre
    d_rows, d_tpot, d_rate = dec
    # ParArrays.pes and HardwareSpec.n_pes are computed on every access: read them once
    p_pes_all, d_pes_all, n_pes = p_rows.pes, d_rows.pes, hw.n_pes
    pi = _top_per_size(p_rate / p_pes_all, p_pes_all, top)
    di = _top_per_size(d_rate / d_pes_all, d_pes_all, top)
    best = None
    for i in pi:
        pp_pes, rp = int(p_pes_all[i]), float(p_rate[i])
        for j in di:
            pd_pes, rd = int(d_pes_all[j]), float(d_rate[j])
            for x in range(1, (n_pes - pd_pes) // pp_pes + 1):
                y_max = (n_pes - x * pp_pes) // pd_pes
                for y in {max(1, min(y_max, v)) for v in (math.floor(x * rp / rd), math.ceil(x * rp / rd))}:
                    pes = x * pp_pes + y * pd_pes
                    level, bw, alpha = kv_link(hw, pes)
                    t_kv = kv_bytes / (pp_pes * bw * hw.link_effs()[level]) + alpha
                    ttft = float(p_lat[i]) + t_kv
                    if ttft_ms is not None and ttft > ttft_ms * 1e6:
                        continue
                    thr = min(x * rp, y * rd)                       # requests per ns
                    score = thr * request.osl / pes
                    if best is None or score > best[0]:
                        best = (score, i, j, x, y, pes, ttft, t_kv, level, thr, rp, rd)
    return best


def best_disaggregated(model: ModelSpec, hw: HardwareSpec, request: Request, ttft_ms=None,
                       tpot_ms=None, runtime=None, rows: ParArrays | None = None,
                       decode: dict | None = None, top: int = 12,
                       speculation: Speculation | None = None) -> DisaggResult | None:
    """The disaggregated deployment with the most tokens/s per PE meeting the SLA, or None
    (``speculation``: the decode instances speculate; their TPOT is t_step / E)."""
    rt = get_runtime(runtime)
    if rows is None:
        rows = serving_rows(model, hw, request, DEFAULT_BATCH_CAP, rt)[0]
        decode = evaluate_serving(model, hw, rows, rows.batch, request, rt, "static",
                                  speculation=speculation)
    ok = decode["fits"] & (decode["decode_ns"] <= (tpot_ms or np.inf) * 1e6)
    p_rows, p_lat, p_period = _prefill_candidates(model, hw, request, rt)
    if not ok.any() or not len(p_rows):
        return None
    d_rows = rows.take(np.flatnonzero(ok))
    d_tpot = decode["decode_ns"][ok]
    d_rate = d_rows.batch / (request.osl * d_tpot)                 # requests per ns
    p_rate = p_rows.batch / p_period
    kv_bytes = float(model.kv_cache_bytes(request.isl))   # windowed layers capped
    found = _best_pair(hw, request, kv_bytes, (p_rows, p_lat, p_rate), (d_rows, d_tpot, d_rate),
                       ttft_ms, top)
    if found is None:
        return None
    score, i, j, x, y, pes, ttft, t_kv, level, thr, rp, rd = found
    tok_s = thr * request.osl * 1e9
    return DisaggResult(
        n_prefill=x, prefill_par=p_rows.config(int(i)), prefill_batch=int(p_rows.batch[i]),
        n_decode=y, decode_par=d_rows.config(int(j)), decode_batch=int(d_rows.batch[j]), pes=pes,
        ttft_ms=ttft / 1e6, tpot_ms=float(d_tpot[j]) / 1e6, kv_transfer_ms=t_kv / 1e6,
        link=LINK_NAMES[level], tok_s=tok_s, tok_s_per_pe=tok_s / pes,
        tok_s_per_user=1e9 / float(d_tpot[j]), prefill_utilisation=thr / (x * rp),
        decode_utilisation=thr / (y * rd))
