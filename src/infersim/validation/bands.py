"""Error bands from the leave-one-source-out residuals (:mod:`infersim.cost.bands` uses them).

Every scored row's signed time error ``r = log(predicted / measured time)`` of its LOSO
prediction is filed under its regime and every coarser one; a regime's band spans the
``p``-th to ``(100 − p)``-th percentile of its rows. Errors within one source are correlated (one
stack, one testbed), so the spread of other sources' rows understates how far a new source
falls: ``p`` is chosen so that the band covers 80 % of rows of sources it was not built from
(:func:`calibrated_quantile`; each source's rows checked against bands built from the others).
"""
from __future__ import annotations

import json
from importlib import resources

import numpy as np

from infersim.cost.bands import MIN_ROWS, band_for, coarser, key, regime
from infersim.presets.hardware_presets import RAW_PRESETS
from infersim.presets.runtime_presets import BASE_RUNTIMES

TARGET_COVERAGE = 0.80


def row_regime(r) -> dict[str, str]:
    """The regime of a validation row (its phase by where its measured interval is spent)."""
    from infersim.validation.validate import runtime_of

    hw = RAW_PRESETS[r.row.hw]
    return regime("prefill" if r.prefill_share >= 0.5 else "decode", r.batch / r.row.dp, hw.family,
                  BASE_RUNTIMES[runtime_of(r.row)].launch, r.row.gpus > hw.pes_per_sip)


def band_table(results, p: float = 10.0) -> dict[str, dict]:
    """{regime key: {"lo", "hi", "rows", "sources"}} over every regime and its coarser versions,
    from the ``p``-th and ``(100 − p)``-th percentiles of the rows' time errors."""
    errs: dict[str, list[float]] = {}
    srcs: dict[str, set] = {}
    for r in results:
        for reg in coarser(row_regime(r)):
            errs.setdefault(key(reg), []).append(r.time_log_error)
            srcs.setdefault(key(reg), set()).add(r.row.source)
    out = {}
    for k, e in errs.items():
        lo_r, hi_r = np.percentile(e, [p, 100.0 - p])
        out[k] = {"lo": float(np.exp(-hi_r)), "hi": float(np.exp(-lo_r)), "rows": len(e), "sources": len(srcs[k])}
    return out


def coverage(rows, p: float) -> float:
    """Share of ``rows`` whose measured time falls inside the band built without their source."""
    inside = 0
    for name in {r.row.source for r in rows}:
        table = band_table([r for r in rows if r.row.source != name], p)
        for r in (x for x in rows if x.row.source == name):
            b = band_for(row_regime(r), table)
            inside += b is not None and b.lo <= float(np.exp(-r.time_log_error)) <= b.hi
    return inside / max(len(rows), 1)


def calibrated_quantile(rows) -> tuple[float, float]:
    """(p, held-out coverage): the largest tail percentile p ≤ 10 whose bands cover at least
    :data:`TARGET_COVERAGE` of held-out rows (bisection; p = 10 is the plain 10th-90th band)."""
    lo, hi = 0.0, 10.0
    if coverage(rows, hi) >= TARGET_COVERAGE:
        return hi, coverage(rows, hi)
    for _ in range(12):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if coverage(rows, mid) >= TARGET_COVERAGE else (lo, mid)
    return lo, coverage(rows, lo)


def write_bands(rep) -> str:
    """Store the band table of ``rep`` as the package's ``cost/bands.json``; returns its path."""
    path = str(resources.files("infersim") / "cost" / "bands.json")
    rows = rep.scored()
    p, cov = calibrated_quantile(rows)
    doc = {"about": "error bands by regime from infersim validate's leave-one-source-out residuals "
                    "(infersim.cost.bands); regenerate with infersim validate --write-bands",
           "min_rows": MIN_ROWS, "tail_percentile": p, "coverage_held_out": cov, "bands": band_table(rows, p)}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1, sort_keys=True)
        fh.write("\n")
    return path
