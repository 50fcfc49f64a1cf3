"""Validation against published measurements: leave-one-source-out, the headline.

Every row of :mod:`infersim.validation.data` is a published number with its source; each source
names the runtime profile that reproduces its software stack. The headline error is
**leave-one-source-out** (LOSO): for every source in turn, the calibration
(:func:`infersim.validation.fit.fit`) is fitted on all the other sources and that source is
predicted by a fit that never saw it. Beside it: the in-sample error (one fit on every source:
the values the presets carry, ``presets/calibration.toml``) and the error before calibration
(measured maxima and the profiles' stated values).

A change to the cost model is judged by the LOSO figure. The signed LOSO errors also give every
prediction its error band (:mod:`infersim.cost.bands`): by regime, the 10th–90th percentile of
how far published rows of that regime fell from predictions that had not seen them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from statistics import median

import numpy as np

from infersim.presets.hardware_presets import HW_PRESETS
from infersim.presets.model_presets import PRESETS
from infersim.validation.data import published
from infersim.validation.data.measurements import EXCLUDED_ROWS, ROWS
from infersim.validation.data.measurements import SOURCES as STEP_SOURCES
from infersim.validation.data.serving_measurements import SERVING_ROWS, SERVING_SOURCES, run_requests
from infersim.validation.fit import (
    Fit,
    at_bound,
    at_physical_limit,
    fit,
    prior_params,
    rows_moved,
    stored_params,
)
from infersim.validation.harness import Harness
from infersim.validation.rows import Measurement
from infersim.validation.under_load import LoadReport

_PUB_SOURCES, _PUB_ROWS = published.load(set(PRESETS), set(HW_PRESETS))
SOURCES = {**STEP_SOURCES, **SERVING_SOURCES, **_PUB_SOURCES}
#: Published lines infersim cannot express (no preset for the part or model, ...): (source, reason).
NOT_EXPRESSED: list[tuple[str, str]] = [(f["source"], why) for f, why in _PUB_ROWS if why]


def _serving_row(r: tuple) -> Measurement:
    source, model, hw, dtypes, tp, pp, isl, osl, conc, metric, value = r
    return Measurement(source, model, hw, dtypes, tp, conc, isl, osl, metric, value, pp=pp, batching="continuous",
                       requests=run_requests(source, isl, osl))


MEASUREMENTS: list[Measurement] = ([Measurement(*r, head=STEP_SOURCES[r[0]].head) for r in ROWS]
                                   + [_serving_row(r) for r in SERVING_ROWS]
                                   + [Measurement(**f) for f, why in _PUB_ROWS if not why])


def exclusion(row: Measurement) -> str:
    """Why a row is neither fitted nor scored ("" when it is used)."""
    if row.key in EXCLUDED_ROWS:
        return EXCLUDED_ROWS[row.key]
    src = SOURCES[row.source]
    return src.note if src.split == "excluded" else ""


def runtime_of(row: Measurement) -> str:
    return SOURCES[row.source].runtime


@dataclass(frozen=True)
class RowResult:
    row: Measurement
    predicted_prior: float     # measured maxima, the profiles' stated values (before any fit)
    predicted_fit: float       # the in-sample fit (what the presets carry)
    predicted_loso: float      # a fit on every other source
    scored: bool
    note: str = ""
    prefill_share: float = 0.0  # of the measured interval, at the in-sample fit
    batch: int = 1              # the batch the prediction ran at (a continuous row's capacity)

    @property
    def error(self) -> float:
        """Signed LOSO error of the metric: predicted / measured − 1."""
        return self.predicted_loso / self.row.value - 1.0

    @property
    def error_fit(self) -> float:
        return self.predicted_fit / self.row.value - 1.0

    @property
    def error_prior(self) -> float:
        return self.predicted_prior / self.row.value - 1.0

    @property
    def time_log_error(self) -> float:
        """log(predicted time / measured time) of the LOSO prediction: a throughput predicted
        too high is a time predicted too low (the sign every band is stated in)."""
        r = float(np.log(self.predicted_loso / self.row.value))
        return -r if self.row.unit.startswith("tok/s") else r


@dataclass
class Report:
    rows: list[RowResult]
    params: dict[str, float]                 # the in-sample fit
    loso_params: dict[str, dict[str, float]] = field(default_factory=dict)
    fit: Fit | None = None
    #: the serving-under-load section (:mod:`.under_load`: predictions only, never fitted)
    load: "LoadReport | None" = None
    #: per parameter, the scored rows it moves (:func:`.fit.rows_moved`; 0: not identified)
    moved: dict[str, int] = field(default_factory=dict)

    def scored(self, source: str | None = None) -> list[RowResult]:
        return [r for r in self.rows if r.scored and (source is None or r.row.source == source)]

    def median_abs_error(self, which: str = "loso", source: str | None = None) -> float:
        attr = {"loso": "error", "fit": "error_fit", "prior": "error_prior"}[which]
        errs = [abs(getattr(r, attr)) for r in self.scored(source)]
        return median(errs) if errs else float("nan")

    def signed_median(self, rows: list[RowResult]) -> float:
        return median(r.error for r in rows) if rows else float("nan")

    def sources_used(self) -> list[str]:
        return sorted({r.row.source for r in self.scored()})

    def by_source(self) -> list[dict]:
        """Per source: rows, exclusions, LOSO / in-sample / before-calibration median |error|."""
        out = []
        for name, src in SOURCES.items():
            rows = [r for r in self.rows if r.row.source == name]
            if not rows:
                continue
            s = self.scored(name)
            out.append({"source": name, "runtime": src.runtime, "rows": len(s), "excluded_rows": len(rows) - len(s),
                        "median_abs_error": self.median_abs_error("loso", name),
                        "median_signed_error": self.signed_median(s),
                        "median_abs_error_fit": self.median_abs_error("fit", name),
                        "median_abs_error_prior": self.median_abs_error("prior", name),
                        "where": src.where})
        return out

    def at_bound(self) -> list[str]:
        return at_bound(self.params)

    def at_physical_limit(self) -> list[str]:
        return at_physical_limit(self.params)

    def to_dict(self) -> dict:
        return {
            "median_abs_error": {w: self.median_abs_error(w) for w in ("loso", "fit", "prior")},
            "sources": len(self.sources_used()), "scored_rows": len(self.scored()),
            "params": self.params, "params_at_bound": self.at_bound(), "rows_moved": self.moved, "by_source": self.by_source(),
            "rows": [{"id": r.row.id, "source": r.row.source, "unit": r.row.unit, "scored": r.scored,
                      "measured": r.row.value, "predicted_prior": r.predicted_prior,
                      "predicted_fit": r.predicted_fit, "predicted_loso": r.predicted_loso,
                      "error": r.error, "note": r.note} for r in self.rows],
            **({"serving_under_load": self.load.to_dict()} if self.load is not None else {}),
        }


def harness(rows: list[Measurement] | None = None) -> Harness:
    rows = MEASUREMENTS if rows is None else rows
    return Harness(rows, runtime_of, use=[not exclusion(r) for r in rows])


#: LOSO fits start from the priors, as the full fit does (starting from the full fit would leak the
#: held-out source into its own prediction); 15 iterations reach the optimum's error within 0.3%
#: of RMSE (10 → 80 iterations: RMSE of log error 0.1905 → 0.1901, 26 sources, 2026-12).
LOSO_ITERS = 15


def loso(h: Harness) -> tuple[np.ndarray, dict[str, dict[str, float]]]:
    """Each scored row predicted by a fit on every other source (from the priors, never from
    the full fit: that start has seen the held-out source)."""
    pred = np.full(len(h.rows), np.nan)
    params: dict[str, dict[str, float]] = {}
    sources = np.array([r.source for r in h.rows])
    for name in sorted(set(sources[h.scored])):
        held = sources == name
        f = fit(h, mask=~held, iters=LOSO_ITERS)
        params[name] = f.params
        pred[held] = h.predict(f.params)[held]
    return pred, params


def run_validation(refit: bool = True, stored: bool = False) -> Report:
    """Every measurement predicted three ways: before calibration, by the in-sample fit
    (``stored``: the values ``calibration.toml`` holds instead of refitting) and leave one source
    out (``refit=False`` skips the LOSO fits and reports the in-sample prediction in their place)."""
    h = harness()
    full = Fit(stored_params(), float("nan"), int(h.scored.sum()), 0) if stored else fit(h)
    prior = h.predict(prior_params())
    in_sample = h.predict(full.params)
    shares = h.prefill_share(full.params)
    held, loso_params = loso(h) if refit else (in_sample, {})
    out = []
    for i, r in enumerate(h.rows):
        note = exclusion(r) or ("" if h.scored[i] else f"concurrency above the KV capacity ({h.capacity[i]}): "
                                                         "TTFT measures the queue" if h.capacity[i] else
                                "no full-length sequence fits in infersim's memory model")
        out.append(RowResult(r, float(prior[i]), float(in_sample[i]),
                             float(held[i]) if h.scored[i] else float(in_sample[i]), bool(h.scored[i]), note,
                             float(shares[i]), int(h.row_batch[i])))
    return Report(out, full.params, loso_params, None if stored else full, moved=rows_moved(h, full.params))
