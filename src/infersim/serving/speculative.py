"""Speculative decoding on the step model: the drafter's steps, the target's verify step and the
drafter's memory, for arrays of (config, batch) rows. No new cost formula: every time and byte
comes from :mod:`infersim.cost` (the verify step is a decode step with ``s_q = k + 1``).

One speculative step of a sequence (the spec, its α and E: :mod:`infersim.specs.speculation`):

    t_step = k · t_draft + t_verify(k + 1 query tokens)          TPOT = t_step / E

* ``t_verify``: the target's decode step with k+1 query tokens per sequence at the mean context
  (the GEMMs at M = batch·(k+1), attention of k+1 queries over the cached tokens, logits of every
  query token), with the runtime's per-step host work (one engine step per speculative step).
* ``t_draft``: one forward of the drafter at the same batch and context, on the target's
  parallelism (tp, cp, dp and ep as the target; one pipeline stage: the drafter sits beside the
  last stage), without the per-step host work (the k drafts run inside the engine step):
  - ``mtp`` / ``eagle``: a one-layer model of the target's shape (``mtp``: the target's own layer,
    MoE included; ``eagle``: a dense layer of the target's width) with the embedding and LM head
    it shares, so each draft step pays the LM head too;
  - ``draft``: the draft model's decode step.
* memory: the drafter's weights and KV cache per PE join the target's. A head's share is one
  layer: the difference of the two- and one-layer models (the embedding and LM head are the
  target's own); a draft model holds all of its own.
* prompts: the drafter also prefills each prompt; its per-token increment joins the target's.

k = 0 is plain decode: the verify step is the decode step (s_q = 1) and no drafter is loaded.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from infersim.serving.steps import prepared_terms, step
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import ParArrays
from infersim.specs.speculation import Speculation
from infersim.specs.workload import Workload


def _one_layer(model: ModelSpec, layers: int, dense: bool, name: str) -> ModelSpec:
    """``model`` cut to ``layers`` full-attention layers (MoE kept unless ``dense``)."""
    common = dict(name=name, n_layers=layers, layer_types=(), sliding_window=0, attention_chunk_size=0,
                  first_k_dense=0, moe_layer_step=1)
    if dense and model.is_moe:
        width = model.ffn_hidden or model.moe_ffn_hidden * (model.n_experts_per_tok + model.n_shared_experts)
        return replace(model, **common, n_experts=0, n_experts_per_tok=0, n_shared_experts=0,
                       moe_ffn_hidden=0, expert_weight_dtype="", ffn_hidden=width)
    return replace(model, **common)


def draft_spec(model: ModelSpec, spec: Speculation, layers: int = 1) -> ModelSpec:
    """The drafter as a ModelSpec: the draft model, or the target cut to ``layers`` layers (one:
    the MTP module or the EAGLE head; two: to measure one layer's memory by difference)."""
    if spec.method == "draft":
        return spec.draft_model
    return _one_layer(model, layers, spec.method == "eagle", f"{model.name} {spec.method} head")


def draft_rows(rows: ParArrays) -> ParArrays:
    """The drafter's rows: the target's parallelism on one pipeline stage."""
    ones = np.ones(len(rows), dtype=np.int64)
    return replace(rows, pp=ones, microbatches=ones)


def _no_step_host(rt):
    """The runtime without its per-step host work (the drafts run inside the engine's step)."""
    return replace(rt, step_fixed_ns=0.0, seq_ns=0.0)


def draft_ns(model: ModelSpec, hw: HardwareSpec, rows: ParArrays, wl: Workload, spec: Speculation,
             rt) -> np.ndarray:
    """One forward of the drafter for every row (decode or a prompt chunk)."""
    return step(draft_spec(model, spec), hw, draft_rows(rows), wl, _no_step_host(rt))[0]["total_ns"]


def step_ns(model: ModelSpec, hw: HardwareSpec, rows: ParArrays, wl_mean: Workload, spec: Speculation,
            rt) -> tuple[np.ndarray, float]:
    """(t_step = k·t_draft + t_verify, E) for every row at the decode workload ``wl_mean``."""
    k = spec.k
    verify = Workload("decode", s_kv=wl_mean.s_kv, batch=wl_mean.batch, s_q=k + 1)
    t = step(model, hw, rows, verify, rt)[0]["total_ns"]
    if k:
        t = t + k * draft_ns(model, hw, rows, wl_mean, spec, rt)
    return t, spec.tokens_per_step


def draft_memory(model: ModelSpec, hw: HardwareSpec, rows: ParArrays, wl_full: Workload,
                 spec: Speculation) -> dict[str, np.ndarray]:
    """Per PE: the drafter's weights and KV cache at full context (zero at k = 0)."""
    n = len(rows)
    if not spec.k:
        return {"weights": np.zeros(n), "kv_cache": np.zeros(n)}
    d = draft_rows(rows)
    parts = prepared_terms(draft_spec(model, spec), hw, d, wl_full).mem_parts
    if spec.method != "draft":      # one layer: the two-layer model less the one-layer one
        two = prepared_terms(draft_spec(model, spec, layers=2), hw, d, wl_full).mem_parts
        return {p: np.maximum(two[p] - parts[p], 0.0) for p in ("weights", "kv_cache")}
    return {p: parts[p] * np.ones(n) for p in ("weights", "kv_cache")}


def draft_fits(model: ModelSpec, spec: Speculation, rows: ParArrays) -> np.ndarray:
    """Rows whose tensor-parallel degree also divides the draft model's heads."""
    if spec.method != "draft" or not spec.k:
        return np.ones(len(rows), dtype=bool)
    d = spec.draft_model
    return d.n_heads % rows.tp == 0
