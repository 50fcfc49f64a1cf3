"""Validation against published measurements, and the calibration of the GPU presets.

Every row is a published number with its source. Two kinds:

* ``ttft``: time to first token at the given batch = one prefill of ``isl`` tokens (ms);
* ``throughput``: static batching as TensorRT-LLM's ``gptSessionBenchmark`` measures it: a batch
  of ``batch`` requests, ``isl`` input and ``osl`` output tokens each; output tokens per second per
  GPU = batch·osl / (prefill(isl) + (osl − 1)·decode at the mean context isl + osl/2) / GPUs.
  Decode latency is linear in the context, so the mean context gives the exact sum.

Calibration: per GPU family, three factors scale the preset's efficiency curves and kernel
overhead — compute efficiency ×s_c, memory efficiency ×s_m, launch overhead o — fitted by least
squares on log(predicted / measured) over the ``train`` rows (exhaustive grid: the model is
cheap, so the global minimum on the grid is found, no local-minimum worries). Scaling an
efficiency by s is the same as scaling the peak it multiplies, as long as the scaled curve stays
≤ 1, which the grid bounds guarantee; the fit therefore evaluates every grid point in one
vectorized call per row. The fitted values live in :mod:`infersim.hardware_presets`
(``CALIBRATION``); the ``test`` rows are held out and reported separately.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import median

import numpy as np

from . import cost
from .hardware import HardwareSpec
from .hardware_presets import BASE_GPU_SPECS, CALIBRATION, FAMILY_PRESETS, calibrate
from .model_presets import PRESETS
from .parallel import ParArrays, Parallelism
from .simulate import simulate
from .workload import Workload

TRT_LOW_LAT = ("TensorRT-LLM v0.5.0 docs/source/performance.md, Low Latency table "
               "(batch 1, 1st token latency)")
TRT_THROUGHPUT = ("TensorRT-LLM docs/source/performance.md (data v0.6.1), Peak Throughput table, "
                  "gptSessionBenchmark static batching")


@dataclass(frozen=True)
class Measurement:
    id: str
    model: str
    family: str            # calibration family: "hopper" (H100), "ampere" (A100)
    hw: str
    dtype: str             # "fp8" (weights, activations and KV in fp8) or "fp16"
    tp: int
    kind: str              # "ttft" (ms) | "throughput" (output tok/s per GPU)
    batch: int
    isl: int
    osl: int
    measured: float
    source: str
    split: str             # "train" | "test" | "excluded" (shown, not fitted or scored; see note)
    note: str = ""

    @property
    def unit(self) -> str:
        return "ms" if self.kind == "ttft" else "tok/s/GPU"


def _rows() -> list[Measurement]:
    h100, a100 = ("hopper", "H100-SXM x8", "fp8"), ("ampere", "A100-SXM x8", "fp16")
    ttft = [  # (model, tp, isl, ms, split)
        (h100, "GPT-J 6B", 1, 128, 7, "train"), (h100, "GPT-J 6B", 1, 2048, 29, "test"),
        (h100, "Llama 2 7B", 1, 128, 7, "test"), (h100, "Llama 2 7B", 1, 2048, 36, "train"),
        (h100, "Llama 2 70B", 4, 128, 26, "train"), (h100, "Llama 2 70B", 4, 2048, 109, "test"),
        (a100, "GPT-J 6B", 1, 128, 12, "train"), (a100, "GPT-J 6B", 1, 2048, 129, "test"),
        (a100, "Llama 2 7B", 1, 128, 16, "test"), (a100, "Llama 2 7B", 1, 2048, 133, "train"),
        (a100, "Llama 2 70B", 4, 128, 47, "train"), (a100, "Llama 2 70B", 4, 2048, 377, "test"),
    ]
    thr = [  # (model, tp, batch, isl, osl, tok/s/GPU, split)
        (h100, "GPT-J 6B", 1, 1024, 128, 128, 26150, "train"),
        (h100, "GPT-J 6B", 1, 120, 128, 2048, 8011, "test"),
        (h100, "GPT-J 6B", 1, 64, 2048, 128, 2551, "train"),
        (h100, "GPT-J 6B", 1, 64, 2048, 2048, 3327, "train"),
        (h100, "Llama 2 7B", 1, 768, 128, 128, 19694, "test"),
        (h100, "Llama 2 7B", 1, 112, 128, 2048, 6818, "train"),
        (h100, "Llama 2 7B", 1, 80, 2048, 128, 2244, "train"),
        (h100, "Llama 2 7B", 1, 48, 2048, 2048, 2740, "test"),
        (h100, "Llama 2 70B", 2, 1024, 128, 128, 2657, "train"),
        (h100, "Llama 2 70B", 4, 480, 128, 2048, 1486, "train"),
        (h100, "Llama 2 70B", 2, 96, 2048, 128, 306, "test"),
        (h100, "Llama 2 70B", 2, 64, 2048, 2048, 547, "train"),
        (a100, "GPT-J 6B", 1, 512, 128, 128, 6374, "train"),
        (a100, "GPT-J 6B", 1, 60, 2048, 128, 670, "test"),
        (a100, "Llama 2 7B", 1, 384, 128, 128, 5586, "train"),
        (a100, "Llama 2 7B", 1, 60, 128, 2048, 1928, "test"),
        (a100, "Llama 2 7B", 1, 52, 2048, 128, 591, "train"),
    ]
    # TensorRT-LLM before v0.7 had no GQA-aware decode kernel (XQA arrived in v0.7 with a
    # reported ~2.4x Llama-70B throughput gain): its decode attention re-read the KV cache once
    # per query head. That is a software artifact the model does not reproduce, so the two
    # long-decode GQA rows are shown but neither fitted nor scored.
    pre_xqa = {"thr/hopper/Llama 2 70B/tp4/b480/128-2048", "thr/hopper/Llama 2 70B/tp2/b64/2048-2048"}
    out = []
    for (fam, hw, dt), model, tp, isl, ms, split in ttft:
        out.append(Measurement(f"ttft/{fam}/{model}/tp{tp}/isl{isl}", model, fam, hw, dt, tp, "ttft",
                               1, isl, 1, float(ms), TRT_LOW_LAT, split))
    for (fam, hw, dt), model, tp, batch, isl, osl, tps, split in thr:
        rid = f"thr/{fam}/{model}/tp{tp}/b{batch}/{isl}-{osl}"
        note = "pre-XQA kernel re-reads GQA KV per query head" if rid in pre_xqa else ""
        out.append(Measurement(rid, model, fam, hw, dt, tp, "throughput", batch, isl, osl, float(tps),
                               TRT_THROUGHPUT, "excluded" if note else split, note))
    return out


MEASUREMENTS: list[Measurement] = _rows()


def _model(row: Measurement):
    m = PRESETS[row.model].model
    return m.with_dtypes(weight="fp8", act="fp8", kv="fp8") if row.dtype == "fp8" else \
        m.with_dtypes(weight="fp16", act="fp16", kv="fp16")


def _workloads(row: Measurement) -> list[tuple[Workload, float]]:
    """(workload, how many times it runs) whose latencies sum to the measured interval."""
    pre = Workload("prefill", s_kv=row.isl, batch=row.batch)
    if row.kind == "ttft":
        return [(pre, 1.0)]
    mid = row.isl + row.osl // 2
    return [(pre, 1.0), (Workload("decode", s_kv=mid, batch=row.batch), row.osl - 1.0)]


def _to_metric(row: Measurement, total_ns):
    if row.kind == "ttft":
        return total_ns / 1e6
    return row.batch * row.osl / (total_ns * 1e-9) / row.tp


def predict(row: Measurement, hw: HardwareSpec) -> float:
    """The row's metric predicted by :func:`simulate` on ``hw``."""
    model = _model(row)
    total = sum(n * simulate(model, hw, Parallelism(tp=row.tp), wl).total_latency_ns
                for wl, n in _workloads(row))
    return float(_to_metric(row, total))


# ----- calibration ------------------------------------------------------------------------------
S_COMPUTE = np.round(np.arange(0.50, 1.2501, 0.025), 4)
S_MEMORY = np.round(np.arange(0.60, 1.1001, 0.02), 4)
OVERHEAD_NS = np.array([250, 500, 1000, 1500, 2000, 3000, 4000, 5000, 6000, 8000, 10000, 12000,
                        15000, 20000, 25000, 30000, 40000], dtype=float)


def _grid_predictions(row: Measurement, base: HardwareSpec) -> np.ndarray:
    """The row's metric at every (s_c, s_m, o) grid point, flattened in that order."""
    sc, sm, oh = np.meshgrid(S_COMPUTE, S_MEMORY, OVERHEAD_NS, indexing="ij")
    knobs = {"peak_tflops_f16": (base.peak_tflops_f16 * sc).ravel(),
             "bw_hbm_gbs": (base.bw_hbm_gbs * sm).ravel()}
    total = 0.0
    for wl, n in _workloads(row):
        terms = cost.prepare(_model(row), base, ParArrays.from_configs([Parallelism(tp=row.tp)], wl.mode), wl)
        res = cost.evaluate(terms, {k: v[:, None] for k, v in knobs.items()}, breakdown=False)
        per_launch = terms.overhead_ns / base.kernel_overhead_ns
        t = res["total_ns"][:, 0] - terms.overhead_ns[0] + per_launch[0] * oh.ravel()
        total = total + n * t
    return _to_metric(row, total)


@dataclass(frozen=True)
class Fit:
    family: str
    compute_scale: float
    memory_scale: float
    kernel_overhead_ns: float
    train_rmse_log: float
    n_train: int


def fit_family(family: str, rows: list[Measurement] | None = None) -> Fit:
    """Least-squares fit of (s_c, s_m, o) on the family's train rows over the grid."""
    rows = [r for r in (rows or MEASUREMENTS) if r.family == family and r.split == "train"]
    base = BASE_GPU_SPECS[family]
    sq = 0.0
    for r in rows:
        sq = sq + np.log(_grid_predictions(r, base) / r.measured) ** 2
    i = int(np.argmin(sq))
    ic, im, io = np.unravel_index(i, (len(S_COMPUTE), len(S_MEMORY), len(OVERHEAD_NS)))
    return Fit(family, float(S_COMPUTE[ic]), float(S_MEMORY[im]), float(OVERHEAD_NS[io]),
               float(math.sqrt(sq[i] / len(rows))), len(rows))


@dataclass(frozen=True)
class RowResult:
    row: Measurement
    predicted_raw: float       # uncalibrated preset (generic efficiency curves)
    predicted: float           # calibrated preset

    @property
    def error(self) -> float:
        return self.predicted / self.row.measured - 1.0

    @property
    def error_raw(self) -> float:
        return self.predicted_raw / self.row.measured - 1.0


@dataclass(frozen=True)
class Report:
    rows: list[RowResult]
    fits: dict[str, Fit]

    def median_abs_error(self, split: str | None = None, calibrated: bool = True) -> float:
        errs = [abs(r.error if calibrated else r.error_raw) for r in self.rows
                if split is None or r.row.split == split]
        return median(errs)

    def to_dict(self) -> dict:
        return {
            "fits": {k: vars(v) for k, v in self.fits.items()},
            "median_abs_error": {s: self.median_abs_error(s) for s in ("train", "test")},
            "median_abs_error_uncalibrated": {s: self.median_abs_error(s, False) for s in ("train", "test")},
            "rows": [{"id": r.row.id, "split": r.row.split, "unit": r.row.unit, "measured": r.row.measured,
                      "predicted_uncalibrated": r.predicted_raw, "predicted": r.predicted,
                      "error": r.error, "source": r.row.source} for r in self.rows],
        }

    def markdown(self) -> str:
        lines = ["| row | split | measured | uncalibrated | calibrated | error | note |",
                 "|---|---|---:|---:|---:|---:|---|"]
        for r in self.rows:
            lines.append(f"| {r.row.id} | {r.row.split} | {r.row.measured:,.0f} {r.row.unit} | "
                         f"{r.predicted_raw:,.1f} | {r.predicted:,.1f} | {100 * r.error:+.1f}% | {r.row.note} |")
        return "\n".join(lines)


def run_validation(refit: bool = False) -> Report:
    """Compare the presets with every measurement; ``refit`` fits afresh instead of reading
    the stored calibration."""
    fits = {f: fit_family(f) for f in FAMILY_PRESETS} if refit else {}
    out = []
    for r in MEASUREMENTS:
        base = BASE_GPU_SPECS[r.family]
        if refit:
            f = fits[r.family]
            cal = calibrate(base, f.compute_scale, f.memory_scale, f.kernel_overhead_ns)
        else:
            cal = calibrate(base, *CALIBRATION[r.family])
        out.append(RowResult(r, predict(r, base), predict(r, cal)))
    return Report(out, fits)


def write_docs(rep: Report, path: str) -> None:
    """docs/validation.md: method, fitted factors, error table."""
    fits = rep.fits or {f: None for f in CALIBRATION}
    lines = [
        "# Validation against published measurements",
        "",
        "Generated by `infersim validate --refit --write-docs docs/validation.md`.",
        "",
        "**Sources.** " + TRT_LOW_LAT + "; " + TRT_THROUGHPUT + ". Models: TensorRT-LLM's "
        "\"LLaMA 7B / 70B\" are Llama 2 7B / 70B; GPT-J 6B. H100 rows ran FP8 (weights, "
        "activations, KV cache), A100 rows FP16.",
        "",
        "**Method.** `ttft` rows are one prefill at batch 1. `throughput` rows reproduce static "
        "batching: prefill(isl) + (osl − 1) decode steps at the mean context, output tokens/s per "
        "GPU. Per GPU family three factors — compute-efficiency scale, memory-efficiency scale, "
        "kernel launch overhead — are fitted by least squares on log error over the `train` rows "
        "(exhaustive grid); `test` rows are held out. Two long-decode Llama 2 70B rows are shown "
        "but excluded: TensorRT-LLM before v0.7 had no GQA-aware decode kernel (XQA) and re-read "
        "the KV cache per query head, a software artifact outside the model.",
        "",
        "| family | compute × | memory × | overhead (ns) |",
        "|---|---:|---:|---:|",
    ]
    for fam in CALIBRATION:
        c = CALIBRATION[fam] if fits.get(fam) is None else (
            fits[fam].compute_scale, fits[fam].memory_scale, fits[fam].kernel_overhead_ns)
        lines.append(f"| {fam} | {c[0]} | {c[1]} | {c[2]:g} |")
    lines += [
        "",
        f"**Median absolute error**: train {100 * rep.median_abs_error('train'):.1f}%, held-out test "
        f"{100 * rep.median_abs_error('test'):.1f}% (uncalibrated generic curves: train "
        f"{100 * rep.median_abs_error('train', False):.1f}%, test "
        f"{100 * rep.median_abs_error('test', False):.1f}%). The test asserts the held-out median "
        "stays at or under 15%.",
        "",
        rep.markdown(),
        "",
    ]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines))
