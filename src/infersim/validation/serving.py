"""Serving validation: predicted vs published continuous-batching measurements.

Reported separately from the step-time validation (:mod:`infersim.validation.validate`): these rows test
the serving layer on top of the calibrated step model — KV capacity (how many sequences fit),
decode batching, prompt tokens riding along decode steps — and no parameter is fitted on them.

* maximum-throughput rows (concurrency 0): the deployment runs the most sequences that fit
  with full-length KV (capped at 2048, trtllm-bench's largest batch), continuous batching;
* concurrency rows: ``batch`` = the client's concurrency. Beyond the KV capacity requests queue
  and the deployment runs at its largest batch, so TPOT and tokens/s saturate (predicted), while
  TTFT then measures the queue, which the steady-state model does not: those TTFT rows are
  shown but not scored.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from statistics import median

import numpy as np

from infersim.presets.hardware_presets import HW_PRESETS
from infersim.presets.model_presets import PRESETS
from infersim.serving.model import Request, evaluate_serving
from infersim.serving.sla import max_batch
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import Parallelism, ParArrays
from infersim.specs.workload import Workload
from infersim.validation.data.serving_measurements import SERVING_ROWS, SERVING_SOURCES

_DTYPES = {"16": ("bf16", "bf16", "bf16"), "fp8": ("fp8", "fp8", "fp8")}
BATCH_CAP = 2048


@dataclass(frozen=True)
class ServingMeasurement:
    source: str
    model: str
    hw: str
    dtypes: str
    tp: int
    pp: int
    isl: int
    osl: int
    concurrency: int
    metric: str
    value: float

    @property
    def id(self) -> str:
        conc = f"c{self.concurrency}" if self.concurrency else "max"
        return (f"{self.source}/{self.model}/{self.hw.split()[0]}/{self.dtypes}/tp{self.tp}pp{self.pp}/"
                f"{self.isl}-{self.osl}/{conc}/{self.metric}")

    @cached_property
    def model_spec(self) -> ModelSpec:
        w, a, kv = _DTYPES[self.dtypes]
        return PRESETS[self.model].model.with_dtypes(weight=w, act=a, kv=kv)


MEASUREMENTS: list[ServingMeasurement] = [ServingMeasurement(*r) for r in SERVING_ROWS]


@dataclass(frozen=True)
class ServingRowResult:
    row: ServingMeasurement
    predicted: float
    batch: int              # the batch the prediction ran at
    capacity: int           # the most full-length sequences that fit
    scored: bool

    @property
    def error(self) -> float:
        return self.predicted / self.row.value - 1.0

    @property
    def note(self) -> str:
        if self.capacity == 0:
            return "no full-length sequence fits in infersim's memory model"
        if not self.scored:
            return f"concurrency above the KV capacity ({self.capacity}): TTFT measures the queue"
        return ""


def predict(row: ServingMeasurement) -> ServingRowResult:
    hw = HW_PRESETS[row.hw]
    model = row.model_spec
    request = Request(row.isl, row.osl)
    par = Parallelism(tp=row.tp, pp=row.pp)
    wl = Workload("decode", s_kv=row.isl + row.osl, batch=max(row.concurrency, 1))
    configs = ParArrays.from_configs([par], wl)
    cap = int(max_batch(model, hw, configs, request, BATCH_CAP)[0])
    batch = cap if row.concurrency == 0 else min(row.concurrency, cap)
    if batch == 0:
        return ServingRowResult(row, float("nan"), 0, 0, False)
    m = 1 if row.pp == 1 else min(row.pp, batch)
    configs = ParArrays.from_configs([Parallelism(tp=row.tp, pp=row.pp, microbatches=m)], wl)
    res = evaluate_serving(model, hw, configs, np.array([batch]), request, row_runtime(row))
    value = {"tok_s_total": res["tok_s"][0], "tpot_ms": res["tpot_ns"][0] / 1e6,
             "ttft_ms": res["ttft_ns"][0] / 1e6}[row.metric]
    scored = not (row.metric == "ttft_ms" and row.concurrency > cap)
    return ServingRowResult(row, float(value), batch, cap, scored)


def row_runtime(row: ServingMeasurement) -> str:
    return SERVING_SOURCES[row.source].runtime


@dataclass(frozen=True)
class ServingReport:
    rows: list[ServingRowResult]

    def scored(self) -> list[ServingRowResult]:
        return [r for r in self.rows if r.scored and r.capacity > 0]

    def median_abs_error(self, source: str | None = None) -> float:
        errs = [abs(r.error) for r in self.scored() if source is None or r.row.source == source]
        return median(errs) if errs else float("nan")

    def by_source(self) -> list[dict]:
        out = []
        for name, src in SERVING_SOURCES.items():
            rows = [r for r in self.rows if r.row.source == name]
            if rows:
                out.append({"source": name, "rows": len(rows), "scored": sum(r in self.scored() for r in rows),
                            "median_abs_error": self.median_abs_error(name), "where": src.where})
        return out

    def to_dict(self) -> dict:
        return {"median_abs_error": self.median_abs_error(), "by_source": self.by_source(),
                "rows": [{"id": r.row.id, "measured": r.row.value, "predicted": r.predicted,
                          "error": r.error, "batch": r.batch, "capacity": r.capacity,
                          "scored": r.scored, "note": r.note} for r in self.rows]}


def run_serving_validation() -> ServingReport:
    return ServingReport([predict(r) for r in MEASUREMENTS])
