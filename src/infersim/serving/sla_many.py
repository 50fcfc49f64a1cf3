"""The SLA search of many hardware candidates as one: the co-design sweep's inner loop.

``sla_search(model, hw, request, …, single_replica=True, disaggregated=False)`` for each of H
candidates gives the same answer as :func:`sla_search_many` on all H, which shares the work:

* candidates of one topology (they differ only in the six knobs) share the serving space and
  every prepared step (the knob-free stage of the cost model, :mod:`infersim.serving.steps`);
* candidates of one HBM capacity share the batch brackets — every config at one sequence per
  replica and at the most that fit (which depends on the capacity alone), not ``sla_search``'s
  ladder 1, 2, 4, … — and price them in one evaluation with the knobs as ``(H, 1)`` arrays;
* the batch refinement of every (candidate, config) pair runs as one search over all of them
  (:func:`infersim.serving.sla._refine` with an ``owner`` per config): each round's probes of all
  candidates are one evaluation, each candidate keeping its own best for the pruning bound, and a
  config leaves the search once the tokens/s at its failing end cannot beat that best;
* the ladder is priced only for each candidate's best config, for the sentence naming what stops
  a larger batch (the next ladder batch above the best, as ``sla_search`` states it).

May import: what :mod:`infersim.serving` may.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from infersim.errors import choice
from infersim.presets.runtime_presets import get_runtime
from infersim.serving.model import BATCHING, DEFAULT_CHUNK_TOKENS, Request, evaluate_serving
from infersim.serving.sla import (
    DEFAULT_BATCH_CAP,
    ServingPoint,
    _limit_of,
    _refine,
    _with_default_microbatches,
    batch_rows,
    best_or_miss,
    concat_results,
    limit_ms,
    max_batch,
    prompt_steps_by_config,
    serving_space,
)
from infersim.specs.hardware import KNOBS, HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import FIELDS, ParArrays, concat, field_code

#: Most (candidate × probe row) cells priced in one evaluation of the refinement (bounds memory).
CELLS_PER_CHUNK = 100_000


@dataclass(frozen=True)
class CandidateAnswer:
    """One candidate's answer: its best deployment meeting the SLA (or the nearest miss) and what
    limits the best; ``fits`` False when not one sequence fits (sla_search's NoDeployment)."""

    best: ServingPoint | None
    nearest_miss: ServingPoint | None
    limit: str
    fits: bool = True


def _knobs(hws: list[HardwareSpec]) -> dict[str, np.ndarray]:
    return {k: np.array([[float(getattr(h, k))] for h in hws]) for k in KNOBS}


def _pick(res: dict, h, cols=None) -> dict:
    """Row ``h`` of the ``(H, N)`` entries (or, with ``cols``, entry ``[h[i], cols[i]]``)."""
    if cols is None:
        return {k: (v[h] if np.ndim(v) == 2 else v) for k, v in res.items()}
    return {k: (v[h, cols] if np.ndim(v) == 2 else v) for k, v in res.items()}


def _grids(model, hws, request, rt, batching, chunk_tokens, batch_cap):
    """Per candidate (rows, config of each row, bmax of each row, result, bmax per config) of its
    bracket grid — each config at one sequence per replica and at its most (``bmax``): the
    refinement finds the largest batch meeting the SLA between them — or None where not one
    sequence fits; one evaluation per HBM capacity. Returns them with the serving space."""
    configs = serving_space(model, hws[0], request, True)
    by_cap: dict[float, list[int]] = {}
    for j, hw in enumerate(hws):
        by_cap.setdefault(hw.pe_hbm_gb, []).append(j)
    out: list = [None] * len(hws)
    for js in by_cap.values():
        bmax = max_batch(model, hws[js[0]], configs, request, batch_cap, rt)
        rows, batches, cfg = batch_rows(configs, bmax, ends_only=True)
        if not len(rows):
            continue
        rows = _with_default_microbatches(rows.with_batch(batches))
        res = evaluate_serving(model, hws[js[0]], rows, rows.batch, request, rt, batching, chunk_tokens,
                               knobs=_knobs([hws[j] for j in js]))
        for n, j in enumerate(js):
            out[j] = (rows, cfg, bmax[cfg], _pick(res, n), bmax)
    return out, configs


def _prober(model, hws, owner_hw, request, rt, batching, chunk_tokens, prompt_by_cfg=None):
    """``evaluate(probe, configs)`` for the refinement: every probe row priced with the knobs of
    the candidate its config belongs to (the candidates present, in chunks of bounded size).
    ``prompt_by_cfg``: per (candidate, config), its prompt-chunk and weights-only steps from the
    grid (they do not depend on the batch: the probes reuse them instead of pricing them again)."""
    def evaluate(probe: ParArrays, cfgs: np.ndarray) -> dict:
        who = owner_hw[cfgs]
        uniq, inv = np.unique(who, return_inverse=True)
        step = max(1, CELLS_PER_CHUNK // max(len(probe), 1))
        parts = []
        for s in range(0, len(uniq), step):
            sel = np.flatnonzero((inv >= s) & (inv < s + step))
            rows = probe.take(sel)
            prompt = None if prompt_by_cfg is None else tuple(p[cfgs[sel]] for p in prompt_by_cfg)
            res = evaluate_serving(model, hws[0], rows, rows.batch, request, rt, batching, chunk_tokens,
                                   knobs=_knobs([hws[i] for i in uniq[s:s + step]]), prompt_ns=prompt)
            parts.append((sel, _pick(res, inv[sel] - s, np.arange(len(sel)))))
        out = {k: np.empty(len(probe), dtype=np.asarray(v).dtype) for k, v in parts[0][1].items()}
        for sel, r in parts:
            for k, v in r.items():
                out[k][sel] = v
        return out
    return evaluate


def _topology(model, hws, request, ttft_ms, tpot_ms, rt, batching, chunk_tokens, batch_cap):
    """The answers of candidates that share one topology (see the module docstring)."""
    grids, configs = _grids(model, hws, request, rt, batching, chunk_tokens, batch_cap)
    n_cfg = len(configs)
    live = [j for j, g in enumerate(grids) if g is not None]
    answers: list = [CandidateAnswer(None, None, "memory: not one sequence fits", False)] * len(hws)
    if not live:
        return answers
    # one search over every (candidate, config): candidate k's configs are k·n_cfg + config
    rows = concat([grids[j][0] for j in live])
    cfg = np.concatenate([k * n_cfg + grids[j][1] for k, j in enumerate(live)])
    bmax = np.concatenate([grids[j][2] for j in live])
    res = concat_results([grids[j][3] for j in live])
    owner = np.repeat(np.arange(len(live)), n_cfg)
    owner_hw = np.asarray(live)[owner]
    prompt = prompt_steps_by_config(res, cfg, len(owner))     # each (candidate, config)'s, from its grid rows
    evaluate = _prober(model, hws, owner_hw, request, rt, batching, chunk_tokens, prompt)
    extra = _refine(evaluate, rows, cfg, bmax, res, ttft_ms, tpot_ms, best_only=True, owner=owner)
    if extra is not None:
        more_rows, more_cfg = extra
        rows, res = concat([rows, more_rows]), concat_results([res, evaluate(more_rows, more_cfg)])
        cfg = np.concatenate([cfg, more_cfg])
    member = owner[cfg]
    picks = {}
    for k, j in enumerate(live):
        idx = np.flatnonzero(member == k)          # its bracket rows, then its refined rows
        picks[k] = best_or_miss(rows.take(idx), {n: v[idx] for n, v in res.items()}, ttft_ms, tpot_ms,
                                "tok_s_per_pe")
    limits = _limits(evaluate, configs, [grids[j][4] for j in live], picks, ttft_ms, tpot_ms, batch_cap)
    for k, j in enumerate(live):
        answers[j] = CandidateAnswer(*picks[k], limits.get(k, ""))
    return answers


def _config_index(configs: ParArrays, par) -> int:
    """The serving-space index of ``par`` (micro-batches aside: the rows carry their default)."""
    same = np.ones(len(configs), dtype=bool)
    for f in FIELDS:
        if f != "microbatches":
            same &= getattr(configs, f) == field_code(par, f)
    return int(np.flatnonzero(same)[0])


def _limits(evaluate, configs: ParArrays, bmaxes, picks: dict, ttft_ms, tpot_ms, batch_cap) -> dict:
    """What stops each candidate's best from serving more sequences (:func:`_limit_of` on the
    batch ladder 1, 2, 4, … of its best config, as ``sla_search`` states it), the ladders of every
    candidate priced in one evaluation with their own knobs."""
    n_cfg, parts = len(configs), []
    for k, (best, _) in picks.items():
        if best is not None:
            c = _config_index(configs, best.par)
            ladder, batches, _ = batch_rows(configs.take([c]), bmaxes[k][[c]])
            parts.append((k, _with_default_microbatches(ladder.with_batch(batches)), k * n_cfg + c))
    if not parts:
        return {}
    probe = concat([p[1] for p in parts])
    cfgs = np.concatenate([np.full(len(p[1]), p[2]) for p in parts])
    res, out, at = evaluate(probe, cfgs), {}, 0
    for k, ladder, _ in parts:
        sel = slice(at, at + len(ladder))
        out[k] = _limit_of(ladder, {n: v[sel] for n, v in res.items()}, picks[k][0], ttft_ms, tpot_ms, batch_cap)
        at += len(ladder)
    return out


def sla_search_many(model: ModelSpec, hws: list[HardwareSpec], request: Request, ttft_ms: float | None = None,
                    tpot_ms: float | None = None, runtime=None, batching: str = "continuous",
                    chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
                    batch_cap: int = DEFAULT_BATCH_CAP) -> list[CandidateAnswer]:
    """Per hardware candidate, the best single-replica deployment meeting the SLA by tokens/s per
    PE, its nearest miss and its limit: the answers of ``sla_search(…, single_replica=True,
    disaggregated=False)`` on each, computed together (see the module docstring)."""
    ttft_ms, tpot_ms = limit_ms("ttft_ms", ttft_ms), limit_ms("tpot_ms", tpot_ms)
    choice("batching", batching, BATCHING)
    rt = get_runtime(runtime)
    groups: dict[HardwareSpec, list[int]] = {}
    for i, hw in enumerate(hws):
        groups.setdefault(hw.without_knobs(), []).append(i)
    out: list = [None] * len(hws)
    for idx in groups.values():
        for i, a in zip(idx, _topology(model, [hws[i] for i in idx], request, ttft_ms, tpot_ms, rt,
                                       batching, chunk_tokens, batch_cap)):
            out[i] = a
    return out
