"""The calibration fit: bounded, physically meaningful parameters fitted on published measurements.

Parameters (:data:`PARAMS`), each with a physical range and a prior:

* per GPU family (``hardware.<family>``): multipliers of the measured maxima of its efficiency
  tables (bf16 / fp8 GEMMs, HBM streaming, 8-bit-weight GEMMs, attention compute and memory;
  every resulting maximum also stays inside ``specs.efficiency.EFF_BOUNDS``) and its
  ``ridge_overlap`` (the share of an operator's shorter phase hidden under the longer);
* per runtime profile (``runtime.<profile>``): its kernel gap, host launch cost, launch
  multiplier, per-step and per-sequence host cost; a parameter may be shared by several
  profiles (the device's kernel gap is the driver's, the same whatever launches the graph).
  A collective's latency inside a node is not fitted: the hardware's ``alpha_intra_ns`` is
  measured on TensorRT-LLM's one-shot all-reduce with its launch, so the runtime's
  ``collective_ns`` (library latency beyond it) stays 0; fitted, it ended on that floor
  (2026-12: LOSO 8.69% fitted, 8.72% not).

The fit minimises Σ w² · ρ(log(predicted / measured)) + a weak prior term by a bounded
Levenberg–Marquardt on normalised parameters, each source weighing the same in total; ρ is the
robust soft-L1 loss of scale :data:`LOSS_SCALE` (:func:`soft_l1`), quadratic for the model's
typical miss and linear beyond it. It never
calls the cost model while it iterates: :class:`Harness` builds every row's cost-model terms once
(with the uncalibrated presets) and re-combines them for new parameter values with the cost
model's own formulas (:func:`infersim.cost.evaluate.op_time`, ``step_host_ns``,
``Runtime.host_ns_per_launch``, :func:`infersim.serving.model.continuous_times`), vectorised over
every operator of every row; ``tests/test_validate.py`` checks it equals the public API at random
parameter values. Rows the harness cannot decompose (pipeline parallelism) are evaluated
through the public API.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from infersim.presets.calibration import calibration
from infersim.presets.hardware_presets import FAMILY_PRESETS, RAW_PRESETS
from infersim.presets.runtime_presets import BASE_RUNTIMES, SCENARIO_RUNTIMES
from infersim.specs.efficiency import EFF_BOUNDS, calibrate, table_top
from infersim.specs.hardware import HardwareSpec
from infersim.specs.runtime import Runtime
from infersim.validation.rows import Measurement

#: Hardware fields a family parameter may set absolutely (everything else is a table multiplier).
ABSOLUTE_HW = ("ridge_overlap", "kernel_latency_ns")


@dataclass(frozen=True)
class Param:
    """One fitted parameter: its range, its prior (None: the first target's preset value) and
    the fields it sets, each ``(kind, group, field)`` with kind "hardware" (group a family) or
    "runtime" (group a profile)."""

    name: str
    lo: float
    hi: float
    targets: tuple[tuple[str, str, str], ...]
    prior: float | None = None
    why: str = ""

    @property
    def prior_value(self) -> float:
        if self.prior is not None:
            return self.prior
        kind, grp, field = self.targets[0]
        return float(getattr(BASE_RUNTIMES[grp], field)) if kind == "runtime" else 1.0


def _fam(fam: str, what: str, lo: float, hi: float, prior: float | None = None, why: str = "") -> Param:
    return Param(f"{fam}.{what}", lo, hi, (("hardware", fam, what),), prior, why)


def _rt(profiles: tuple[str, ...], field: str, lo: float, hi: float, name: str | None = None,
        why: str = "") -> Param:
    return Param(name or f"{profiles[0]}.{field}", lo, hi, tuple(("runtime", p, field) for p in profiles), None, why)


GRAPH_PROFILES = ("cuda-graphs", "vllm", "sglang", "trtllm")
#: vLLM's releases share one host loop (the same per-step and per-sequence work); they differ in
#: whether it overlaps the device (``host_overlap``) and in their MoE kernels.
VLLM_PROFILES = ("vllm", "vllm-0.13", "vllm-v0")
ALL_PROFILES = tuple(n for n in BASE_RUNTIMES if n not in SCENARIO_RUNTIMES)   # scenarios are not fitted
FAMILIES = ("hopper", "ampere", "ada", "cdna3", "blackwell")


#: Maxima a family's reference part (the first of ``FAMILY_PRESETS``) states as estimates, not
#: measurements (its hardware file says so): no published micro-benchmark bounds them, so their
#: multipliers span the kind's physical range (``EFF_BOUNDS`` over the reference maximum) instead
#: of a measured maximum's spread. L40S: no published L40S micro-benchmarks; A100 and MI300X: the
#: 8-bit-weight GEMV at H100's fp8/bf16 ratio and the paged decode attention; B200: decode
#: attention as Hopper's.
ESTIMATED = {"ada": ("compute", "compute_fp8", "memory", "memory_fp8", "attn_compute", "attn_memory"),
             "ampere": ("memory_fp8", "attn_memory"), "cdna3": ("memory_fp8", "attn_memory"),
             "blackwell": ("attn_memory",)}


def _reference_top(fam: str, kind: str) -> float | None:
    """The maximum of ``kind`` on the family's reference part (the first of ``FAMILY_PRESETS``)."""
    top = table_top(RAW_PRESETS[FAMILY_PRESETS[fam][0]], kind)
    return None if top is None else top[1]


def _estimated(fam: str, kind: str, why: str) -> Param:
    """The multiplier of an estimated maximum: from its kind's physical floor to its ceiling."""
    top = _reference_top(fam, kind)
    lo, hi = EFF_BOUNDS[kind]
    return _fam(fam, kind, round(lo / top, 3), round(hi / top, 3), why=f"{why} (an estimate: its physical range)")


def _family_params(fam: str) -> tuple[Param, ...]:
    """Multipliers of a family's measured maxima (:data:`ESTIMATED`: of its estimates) and its
    ridge overlap."""
    def mult(kind: str, lo: float, hi: float, why: str) -> Param:
        return _estimated(fam, kind, why) if kind in ESTIMATED.get(fam, ()) else _fam(fam, kind, lo, hi, why=why)
    return (
        mult("compute", 0.70, 1.15, "bf16 GEMM maximum / measured"),
        mult("compute_fp8", 0.60, 1.30, "fp8 GEMM maximum / measured"),
        mult("memory", 0.80, 1.08, "HBM streaming maximum / measured (stream benchmarks bound it)"),
        mult("memory_fp8", 0.60, 1.60, "HBM efficiency of GEMMs streaming 8-bit weights / measured"),
        mult("attn_compute", 0.50, 1.50, "flash-attention compute maximum / its prior"),
        mult("attn_memory", 0.60, 1.20, "decode-attention KV read maximum / its prior"),
        _fam(fam, "ridge_overlap", 0.0, 1.0, prior=0.75,
             why="share of an operator's shorter phase hidden under the longer (1 = ideal roofline)"),
    )


PARAMS: tuple[Param, ...] = (
    *(p for fam in FAMILIES for p in _family_params(fam)),
    _rt(ALL_PROFILES, "kernel_gap_ns", 300.0, 6000.0, name="gpu.kernel_gap_ns",
        why="idle device time between kernels: launch + the previous kernel's tail (shared by every profile)"),
    _rt(ALL_PROFILES, "net_collective_ns", 0.0, 200_000.0, name="gpu.net_collective_ns",
        why="NCCL's latency per collective call across nodes beyond the link hops (network proxy, protocol)"),
    _rt(VLLM_PROFILES, "step_fixed_ns", 0.0, 3_000_000.0, why="vLLM's scheduler and input preparation per step"),
    _rt(VLLM_PROFILES, "seq_ns", 0.0, 100_000.0, why="vLLM's host work per sequence per step"),
    _rt(("vllm-v0", "sglang-0.4"), "moe_efficiency", 0.3, 1.0,
        why="early-2025 Triton fused-MoE kernels (vLLM V0, SGLang < 0.4.5) / the part's GEMM maxima"),
    _rt(("trtllm",), "moe_efficiency", 0.3, 1.0,
        why="TensorRT-LLM's MoE kernels (routing, permutation, grouped GEMMs, finalize) / GEMM maxima"),
    _rt(("trtllm",), "step_fixed_ns", 0.0, 3_000_000.0, why="TensorRT-LLM's batch manager per step"),
    _rt(("trtllm",), "seq_ns", 0.0, 100_000.0, why="TensorRT-LLM's host work per sequence per step"),
    _rt(("eager",), "host_launch_ns", 5_000.0, 60_000.0, why="PyTorch eager dispatch + launch per kernel"),
    _rt(("trtllm-2023",), "host_launch_ns", 1_000.0, 15_000.0, why="C++ launch per kernel (no graphs)"),
    _rt(("trtllm-2023",), "step_fixed_ns", 0.0, 5_000_000.0, why="TensorRT-LLM 2023 session runtime per step"),
)
NAMES = [p.name for p in PARAMS]


def prior_params() -> dict[str, float]:
    return {p.name: p.prior_value for p in PARAMS}


def stored_params() -> dict[str, float]:
    """The values the presets carry today (``calibration.toml``), priors where it has none."""
    cal = calibration()
    out = {}
    for p in PARAMS:
        kind, grp, field = p.targets[0]
        out[p.name] = cal.get(f"{kind}.{grp}.{field}", p.prior_value)
    return out


def assignments(params: dict[str, float], spec: tuple[Param, ...] = PARAMS) -> dict[tuple[str, str], dict[str, float]]:
    """(kind, group) → {field: value} for every target of every parameter of ``spec`` in ``params``."""
    out: dict[tuple[str, str], dict[str, float]] = {}
    for p in spec:
        if p.name in params:
            for kind, grp, field in p.targets:
                out.setdefault((kind, grp), {})[field] = float(params[p.name])
    return out


def calibration_values(params: dict[str, float]) -> dict[str, float]:
    """The flat ``calibration.toml`` keys of a parameter set."""
    return {f"{kind}.{grp}.{field}": v for (kind, grp), fields in assignments(params).items()
            for field, v in fields.items()}


def hw_group(hw: HardwareSpec) -> str:
    """The group a hardware parameter targets: the spec's family, or its own name without one
    (a user's base spec calibrated on its own; :data:`PARAMS` only target families)."""
    return hw.family or hw.name


def hardware_for(hw_name: str, params: dict[str, float], raw: HardwareSpec | None = None,
                 spec: tuple[Param, ...] = PARAMS) -> HardwareSpec:
    """The preset ``hw_name`` (or the base spec ``raw``) calibrated with ``params`` (its
    measured maxima when no parameter targets its group)."""
    raw = RAW_PRESETS[hw_name] if raw is None else raw
    values = assignments(params, spec).get(("hardware", hw_group(raw)), {})
    return _calibrated(raw, tuple(sorted(values.items()))) if values else raw


def runtime_for(name: str, params: dict[str, float], base: Runtime | None = None,
                spec: tuple[Param, ...] = PARAMS) -> Runtime:
    """The profile ``name`` (or the base runtime ``base``) with ``params``' values (its own
    values where it has none)."""
    base = BASE_RUNTIMES[name] if base is None else base
    values = assignments(params, spec).get(("runtime", name), {})
    return _with_values(base, tuple(sorted(values.items()))) if values else base


# A fit asks for the same few specs thousands of times (a Jacobian column changes one parameter):
# building and validating a spec costs more than the prediction that uses it.
@lru_cache(maxsize=4096)
def _calibrated(raw: HardwareSpec, values: tuple) -> HardwareSpec:
    return calibrate(raw, **dict(values))


@lru_cache(maxsize=4096)
def _with_values(base: Runtime, values: tuple) -> Runtime:
    return replace(base, **dict(values))


__all__ = ["Param", "PARAMS", "NAMES", "prior_params", "stored_params", "hardware_for", "runtime_for",
           "calibration_values", "fit", "Fit", "at_bound", "levenberg_marquardt", "hw_group", "PRIOR_WEIGHT"]


# ----- the fit ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Fit:
    params: dict[str, float]
    rmse_log: float
    n_rows: int
    iterations: int
    spec: tuple[Param, ...] = field(default=PARAMS, repr=False, compare=False)

    def at_bound(self) -> list[str]:
        """Parameters the fit pushed to a bound of their physical range."""
        return at_bound(self.params, self.spec)


def at_bound(params: dict[str, float], spec: tuple[Param, ...] = PARAMS) -> list[str]:
    """Parameters at a bound of their range, or (:data:`PARAMS`' family multipliers of the raw
    presets) whose multiplier takes the reference part's maximum to a bound of its physical range
    (``EFF_BOUNDS``: beyond it the multiplier changes nothing, so the fit stops there) when it has
    left its prior."""
    limit = set(at_physical_limit(params, spec))
    return [p.name for p in spec if p.name in params and (
        math.isclose(params[p.name], p.lo, rel_tol=1e-3, abs_tol=1e-9 + 1e-3 * (p.hi - p.lo))
        or math.isclose(params[p.name], p.hi, rel_tol=1e-3, abs_tol=1e-3 * (p.hi - p.lo))
        or p.name in limit)]


def at_physical_limit(params: dict[str, float], spec: tuple[Param, ...] = PARAMS) -> list[str]:
    """The parameters :func:`at_bound` reports inside their range: their maximum at its physical limit."""
    return [p.name for p in spec if p.name in params and params[p.name] != p.prior_value
            and _clipped(p, params[p.name])]


def _clipped(p: Param, value: float) -> bool:
    kind, fam, field = p.targets[0]
    if p not in PARAMS or kind != "hardware" or field not in EFF_BOUNDS:
        return False
    top = _reference_top(fam, field)
    lo, hi = EFF_BOUNDS[field]
    return top is not None and not lo * 1.002 < top * value < hi * 0.998


def rows_moved(h, params: dict[str, float], spec: tuple[Param, ...] = PARAMS) -> dict[str, int]:
    """How many scored rows each parameter moves: the rows whose prediction changes by more than
    1e-6 (relative) when the parameter moves a twentieth of its range towards the interior. A
    parameter that moves none is not identified by the data: the fit leaves it at its prior
    (e.g. a per-step host cost hidden under the device step by an asynchronous scheduler)."""
    base = h.predict(params)
    out = {}
    for p in spec:
        v = params[p.name]
        step = (p.hi - p.lo) / 20.0
        moved = h.predict({**params, p.name: v + step if v + step <= p.hi else v - step})
        with np.errstate(invalid="ignore", divide="ignore"):
            rel = np.abs(moved / base - 1.0)
        out[p.name] = int(np.sum(h.scored & (rel > 1e-6)))
    return out


def source_weights(rows: list[Measurement]) -> np.ndarray:
    """Each source weighs the same in total (a long table must not drown a short one)."""
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.source] = counts.get(r.source, 0) + 1
    return np.array([1.0 / math.sqrt(counts[r.source]) for r in rows])


def levenberg_marquardt(residuals, x0: np.ndarray, iters: int = 80) -> tuple[np.ndarray, int]:
    """Minimise |residuals(x)|² for x in the unit box: Levenberg–Marquardt with an active set
    (a coordinate at a bound whose gradient points outwards is frozen for the step), a
    forward-difference Jacobian, and a stop when an iteration gains less than 1e-6 relative."""
    x = np.clip(x0, 0.0, 1.0)
    r = residuals(x)
    cost_now, lam, it = float(r @ r), 1e-3, 0
    for it in range(1, iters + 1):
        J = np.empty((len(r), len(x)))
        for j in range(len(x)):
            h = 1e-4 if x[j] + 1e-4 <= 1.0 else -1e-4
            xj = x.copy()
            xj[j] += h
            J[:, j] = (residuals(xj) - r) / h
        g = J.T @ r
        free = ~(((x <= 0.0) & (g > 0)) | ((x >= 1.0) & (g < 0)))
        A = (J.T @ J)[np.ix_(free, free)]
        improved = False
        while lam < 1e9 and free.any():
            step = np.zeros_like(x)
            step[free] = np.linalg.solve(A + lam * (np.diag(np.diag(A)) + 1e-9 * np.eye(int(free.sum()))),
                                         -g[free])
            xn = np.clip(x + step, 0.0, 1.0)
            rn = residuals(xn)
            cn = float(rn @ rn)
            if cn < cost_now:
                improved = cost_now - cn > 1e-6 * cost_now
                x, r, cost_now, lam = xn, rn, cn, max(lam / 3.0, 1e-9)
                break
            lam *= 4.0
        if not improved:
            break
    return x, it


#: Weight of the prior: a parameter one whole range away from its prior costs as much as one
#: row predicted e^0.1 off (weak: it decides only what the rows cannot). Chosen by LOSO, the
#: fit's regularisation (2026-12, 44 sources, median |error| held out): 0.05 9.52%, 0.075 9.18%,
#: 0.1 9.06%, 0.125 9.13%, 0.15 9.11%, 0.2 9.22%, 0.3 9.66%, before TensorRT-LLM's MoE quality
#: was fitted; with it 0.075 8.90%, 0.1 8.69%, 0.15 8.83% (from 0.125 up TensorRT-LLM's
#: DeepSeek-R1 blog is predicted above 30%). Weaker, the fit drifts along directions the rows
#: hardly constrain (a near-flat optimum) and the held-out fits, 15 iterations from the priors,
#: land far apart.
PRIOR_WEIGHT = 0.1

#: Scale of the robust loss, in log error: the model's typical miss (the headline is a median
#: of about 10%). Within it a row's cost is quadratic, beyond it linear.
LOSS_SCALE = 0.10


def soft_l1(r: np.ndarray, scale: float = LOSS_SCALE) -> np.ndarray:
    """Residuals whose squares sum to the soft-L1 loss 2·s²·(√(1 + (r/s)²) − 1): quadratic for
    |r| ≪ s, linear for |r| ≫ s. A source the model cannot express (a CPU-bound eager stack, an
    early kernel generation) then pulls the shared parameters about as much as a row missed by
    s, not by the square of its miss, so it no longer bends every other row's prediction (least
    squares: LOSO 11.75%; soft-L1 at s = 0.05 / 0.10 / 0.20: 10.5% / 10.4% / 10.7%)."""
    return np.sign(r) * np.sqrt(2.0 * scale * scale * (np.sqrt(1.0 + (r / scale) ** 2) - 1.0))


def fit(harness, mask: np.ndarray | None = None, start: dict[str, float] | None = None, iters: int = 80,
        params: tuple[Param, ...] | None = None, prior_weight: float = PRIOR_WEIGHT) -> Fit:
    """Fit ``params`` (default: every parameter of the harness, :data:`PARAMS`) on the rows of
    ``harness`` where ``mask`` holds (default: all scored rows), starting from ``start``
    (default: the priors); parameters left out keep their base values."""
    params = getattr(harness, "spec", PARAMS) if params is None else tuple(params)
    names = [p.name for p in params]
    rows = harness.rows
    mask = np.ones(len(rows), bool) if mask is None else np.asarray(mask, bool)
    meas = np.array([r.value for r in rows])
    ok = mask & harness.scored
    w = source_weights([r for r, k in zip(rows, ok) if k])
    lo = np.array([p.lo for p in params])
    span = np.array([p.hi - p.lo for p in params])
    x_prior = (np.array([p.prior_value for p in params]) - lo) / span
    to_params = lambda x: dict(zip(names, lo + x * span))  # noqa: E731

    def residuals(x):
        pred = harness.predict(to_params(x))[ok]
        return np.concatenate([w * soft_l1(np.log(pred / meas[ok])), prior_weight * (x - x_prior)])

    x0 = x_prior if start is None else (np.array([start[n] for n in names]) - lo) / span
    x, iters = levenberg_marquardt(residuals, np.clip(x0, 0.0, 1.0), iters)
    out = {k: float(v) for k, v in to_params(x).items()}
    res = np.log(harness.predict(out)[ok] / meas[ok])
    return Fit(out, float(math.sqrt(np.mean(res ** 2))), int(ok.sum()), iters, params)
