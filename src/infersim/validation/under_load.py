"""Serving under load: published measurements at a stated request rate (or client concurrency)
predicted by the request-level traffic simulator (:func:`infersim.serving.load.simulate_traffic`).

Each row of :mod:`infersim.validation.data.published_load` is replayed with its own traffic (the
arrival process at the stated rate, the stated number of requests, the lengths or the dataset's
length distribution) and the engine's scheduler knobs, on the presets with the **current
calibration** (``presets/calibration.toml``, the hardware presets and runtime profiles as shipped).
These rows are **not fitted**: the calibration never sees them, so their errors are predictions
of numbers infersim has not seen, like the leave-one-source-out figure of :mod:`.validate`.

A published statistic over a few hundred requests carries sampling noise, and so does one
simulated run of the same count; the prediction is the mean of the statistic over
:data:`SEEDS` seeded runs of the row's own request count (the queue of a finite run, e.g. 500
requests beyond saturation, is part of what is measured). Error = predicted / measured − 1.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from statistics import median

import numpy as np

from infersim.presets.hardware_presets import HW_PRESETS
from infersim.presets.model_presets import PRESETS
from infersim.serving.load import simulate_traffic
from infersim.specs.parallel import Parallelism
from infersim.validation.data import published_load
from infersim.validation.data.published_load import METRICS, LoadRow
from infersim.validation.rows import DTYPES

SEEDS = (0, 1, 2)


def _model(row: LoadRow):
    w, a, kv = DTYPES[row.dtypes]
    return PRESETS[row.model].model.with_dtypes(weight=w, act=a, kv=kv)


def statistic(result, row: LoadRow) -> float:
    """The row's metric and stat from one simulated run (ms, or output tokens/s)."""
    m = METRICS[row.metric]
    if m == "tok_s":
        return result.tok_s
    q = row.percentile
    return result.mean_ms(m) if q is None else result.percentile_ms(m, q)


def _sim_key(row: LoadRow) -> tuple:
    return (row.model, row.hw, row.dtypes, row.runtime, row.tp, row.pp, row.dp, row.traffic, row.scheduler)


def predict(rows: list[LoadRow], seeds=SEEDS) -> list[float]:
    """Each row's prediction: its statistic averaged over one run per seed (rows that share a
    deployment and traffic share the runs)."""
    runs: dict[tuple, list] = {}
    out = []
    for row in rows:
        key = _sim_key(row)
        if key not in runs:
            par = Parallelism(tp=row.tp, pp=row.pp, dp=row.dp)
            runs[key] = [simulate_traffic(_model(row), HW_PRESETS[row.hw], par, replace(row.traffic, seed=s),
                                          runtime=row.runtime, scheduler=row.scheduler) for s in seeds]
        out.append(float(np.mean([statistic(r, row) for r in runs[key]])))
    return out


@dataclass(frozen=True)
class LoadResult:
    row: LoadRow
    predicted: float

    @property
    def error(self) -> float:
        """Signed error: predicted / measured − 1."""
        return self.predicted / self.row.value - 1.0


@dataclass
class LoadReport:
    """The serving-under-load section: every predicted row, and the lines not expressed."""

    results: list[LoadResult]
    not_expressed: list[tuple[str, str]] = field(default_factory=list)    # (source, reason)
    sources: dict[str, dict] = field(default_factory=dict)               # name -> title, where, engine
    elapsed_s: float = 0.0

    def errors(self, source: str | None = None) -> list[float]:
        return [r.error for r in self.results if source is None or r.row.source == source]

    def median_abs_error(self, source: str | None = None) -> float:
        e = self.errors(source)
        return median(abs(x) for x in e) if e else float("nan")

    def signed_median(self, source: str | None = None) -> float:
        e = self.errors(source)
        return median(e) if e else float("nan")

    def by_source(self) -> list[dict]:
        """Per source: rows, lines not expressed, median |error| and signed median, by metric too."""
        out = []
        for name, meta in self.sources.items():
            res = [r for r in self.results if r.row.source == name]
            metrics = {}
            for m in sorted({r.row.metric for r in res}):
                e = [r.error for r in res if r.row.metric == m]
                metrics[m] = {"rows": len(e), "median_abs_error": median(abs(x) for x in e),
                              "median_signed_error": median(e)}
            out.append({"source": name, "engine": meta["engine"], "rows": len(res),
                        "not_expressed": sum(1 for s, _ in self.not_expressed if s == name),
                        "median_abs_error": self.median_abs_error(name) if res else float("nan"),
                        "median_signed_error": self.signed_median(name) if res else float("nan"),
                        "by_metric": metrics, "where": meta["where"]})
        return out

    def to_dict(self) -> dict:
        return {"fitted": False, "seeds": list(SEEDS), "median_abs_error": self.median_abs_error(),
                "median_signed_error": self.signed_median(), "rows_predicted": len(self.results),
                "sources": len({r.row.source for r in self.results}), "by_source": self.by_source(),
                "not_expressed": [{"source": s, "why": w} for s, w in self.not_expressed],
                "rows": [{"id": r.row.id, "source": r.row.source, "metric": r.row.metric, "stat": r.row.stat,
                          "rate_rps": r.row.traffic.rate_rps, "concurrency": r.row.traffic.concurrency,
                          "measured": r.row.value, "predicted": r.predicted, "error": r.error}
                         for r in self.results]}


def run_load_validation(seeds=SEEDS) -> LoadReport:
    """Predict every expressible line of ``published_load.jsonl`` (see the module docstring)."""
    t0 = time.perf_counter()
    lines = published_load.load(set(PRESETS), set(HW_PRESETS))
    sources: dict[str, dict] = {}
    for d, _, _ in lines:
        sources.setdefault(d["source"], {"title": d["title"], "where": d["where"], "engine": d["engine"]})
    rows = [row for _, row, _ in lines if row is not None]
    pred = predict(rows, seeds)
    return LoadReport([LoadResult(r, p) for r, p in zip(rows, pred)],
                      [(d["source"], why) for d, row, why in lines if row is None], sources,
                      time.perf_counter() - t0)
