"""Published serving measurements at a stated arrival rate, kept as data: ``published_load.jsonl``.

One JSON line per number: the publication (``source``, ``title``, ``where``), the engine, the model
as its HuggingFace id, the GPU, its count and node count, tp/pp/dp, the dtypes of weights and KV
cache, the traffic (``arrival``: ``poisson`` | ``constant`` | ``concurrency``; ``rate_rps`` or
``concurrency``; ``isl``/``osl``, fixed or the mean of a ``dataset`` whose shape ``lengths`` gives;
``n_requests``; ``prefix_hit``), the engine's scheduler knobs (``scheduler``), the ``metric``
(``ttft_ms`` | ``tpot_ms`` | ``itl_ms`` | ``e2e_ms`` | ``output_tok_s``), its ``stat`` (``mean`` |
``median`` | ``pNN``) and the value as published; ``note`` says what was assumed. A line with
``exclude`` is kept and reported with that reason, never predicted.

:func:`load` maps each line onto infersim with the maps of :mod:`.published` (``MODEL_PRESET``,
``GPU_PRESET``, ``dtype_code``, ``ENGINE_RUNTIME``): a :class:`LoadRow` with the traffic
(:class:`infersim.serving.traffic.Traffic`) and scheduler it is simulated under, or the reason it
cannot be expressed.

Length distributions: a dataset stated only by its mean lengths (ShareGPT) is a lognormal of the
stated ``sigma`` clipped to ``low..high`` whose median is solved so that the clipped distribution
has the published mean (:func:`lognormal_with_mean`); the approximation is named in each row's note.
A client's random lengths within ±``range_ratio`` of the stated length are ``{"kind": "uniform"}``.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from infersim.serving.scheduler import Scheduler
from infersim.serving.traffic import Lengths, Traffic
from infersim.validation.data.published import (
    GPU_PRESET,
    MODEL_PRESET,
    dtype_code,
    runtime_of_engine,
    setup_reason,
)

PATH = Path(__file__).with_name("published_load.jsonl")
METRICS = {"ttft_ms": "ttft", "tpot_ms": "tpot", "itl_ms": "itl", "e2e_ms": "e2e", "output_tok_s": "tok_s"}
ARRIVALS = ("poisson", "constant", "concurrency")


def read(path: Path = PATH) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@lru_cache(maxsize=64)
def lognormal_with_mean(mean: float, sigma: float, low: int, high: int) -> Lengths:
    """A clipped lognormal (:class:`Lengths`, its ``mean`` field is the median) whose clipped mean
    is ``mean``: E[clip(m·e^{σZ}, low, high)] is increasing in the median m, so bisect m on the
    closed form E[clip(X)] = low·P(X<low) + high·P(X>high) + m·e^{σ²/2}·(Φ(b−σ) − Φ(a−σ)),
    a, b = ln(low/m)/σ, ln(high/m)/σ."""
    def phi(x: float) -> float:
        return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))

    def clipped_mean(m: float) -> float:
        a, b = math.log(low / m) / sigma, math.log(high / m) / sigma
        return (low * phi(a) + high * (1.0 - phi(b))
                + m * math.exp(sigma * sigma / 2) * (phi(b - sigma) - phi(a - sigma)))

    lo, hi = float(low), float(high)
    for _ in range(100):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if clipped_mean(mid) < mean else (lo, mid)
    return Lengths("lognormal", mean=math.sqrt(lo * hi), sigma=sigma, low=low, high=high)


def lengths_of(d: dict, which: str) -> Lengths:
    """The row's input (``isl``) or output (``osl``) length distribution: fixed, a clipped lognormal
    of the published mean (``kind`` ``lognormal``), or uniform within ``range_ratio`` of the stated
    length (``kind`` ``uniform``: a benchmark client's ±r random lengths, mean = the stated length)."""
    spec = d.get("lengths")
    if not spec:
        return Lengths.of(int(d[which]))
    if spec.get("kind") == "uniform":
        n, r = int(d[which]), float(spec["range_ratio"])
        return Lengths("uniform", mean=n, low=max(1, round(n * (1 - r))), high=round(n * (1 + r)))
    return lognormal_with_mean(float(d[which]), float(spec["sigma"]), int(spec["low"]), int(spec["high"]))


@dataclass(frozen=True)
class LoadRow:
    """One published number under traffic, mapped onto presets."""

    source: str
    model: str             # model preset
    hw: str                # hardware preset
    dtypes: str            # infersim dtype code (rows.DTYPES)
    runtime: str
    tp: int
    pp: int
    dp: int
    traffic: Traffic
    scheduler: Scheduler
    metric: str            # ttft_ms | tpot_ms | itl_ms | e2e_ms | output_tok_s
    stat: str              # mean | median | pNN
    value: float

    @property
    def id(self) -> str:
        t = self.traffic
        load = f"c{t.concurrency}" if t.arrival == "concurrency" else f"{t.rate_rps:g}rps"
        isl, osl = t.isl, t.osl
        lens = f"{isl.mean:.0f}-{osl.mean:.0f}" if isl.kind == "fixed" else "dist"
        return (f"{self.source}/{self.model}/{self.hw.split()[0]}/{self.dtypes}/tp{self.tp}/{load}/{lens}/"
                f"{self.metric}/{self.stat}")

    @property
    def percentile(self) -> float | None:
        """The percentile of the stat (median = 50), None for a mean."""
        if self.stat == "mean":
            return None
        return 50.0 if self.stat == "median" else float(self.stat[1:])


def _reason(d: dict, presets: set[str], hardware: set[str]) -> str:
    if d.get("exclude"):
        return d["exclude"]
    if (why := setup_reason(d, presets, hardware)):
        return why
    if not runtime_of_engine(d["engine"]):
        return f"no runtime profile for {d['engine']}"
    if d["metric"] not in METRICS:
        return f"metric {d['metric']} not predicted under load"
    if d["arrival"] not in ARRIVALS:
        return f"arrival {d['arrival']} not expressed"
    stat = d["stat"]
    if not (stat in ("mean", "median") or (stat[:1] == "p" and stat[1:].replace(".", "", 1).isdigit())):
        return f"stat {stat} not computed"
    return ""


def _traffic(d: dict, seed: int) -> Traffic:
    kw: dict = {"isl": lengths_of(d, "isl"), "osl": lengths_of(d, "osl"), "n_requests": int(d["n_requests"]),
                "prefix_hit": float(d.get("prefix_hit", 0.0)), "seed": seed}
    if d["arrival"] == "concurrency":
        return Traffic(arrival="concurrency", concurrency=int(d["concurrency"]), **kw)
    # constant arrivals are gamma inter-arrivals of vanishing variation (cv → 0)
    return Traffic(rate_rps=float(d["rate_rps"]), arrival="poisson" if d["arrival"] == "poisson" else "gamma",
                   cv=1.0 if d["arrival"] == "poisson" else 1e-3, **kw)


def to_row(d: dict, seed: int = 0) -> LoadRow:
    """A line that :func:`load` found expressible, as a :class:`LoadRow` (traffic seeded)."""
    sc = d.get("scheduler", {})
    return LoadRow(source=d["source"], model=MODEL_PRESET[d["model"]], hw=GPU_PRESET[(d["gpu"], d.get("nodes", 1))],
                   dtypes=dtype_code(d), runtime=runtime_of_engine(d["engine"]),
                   tp=int(d["tp"]), pp=int(d.get("pp", 1)), dp=int(d.get("dp", 1)), traffic=_traffic(d, seed),
                   scheduler=Scheduler(**sc), metric=d["metric"], stat=d["stat"], value=float(d["value"]))


def load(presets: set[str], hardware: set[str]) -> list[tuple[dict, LoadRow | None, str]]:
    """Every line: (the line, its :class:`LoadRow` or None, the reason it is not expressed or "")."""
    out = []
    for d in read():
        why = _reason(d, presets, hardware)
        out.append((d, None if why else to_row(d), why))
    return out


def sample_mean(lengths: Lengths, n: int = 200_000) -> float:
    """The mean of a length distribution by sampling (checks :func:`lognormal_with_mean`)."""
    return float(lengths.sample(np.random.default_rng(0), n).mean())
