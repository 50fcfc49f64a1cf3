"""Traffic for the request-level simulator: arrival processes and length distributions, seedable.

* ``poisson``: exponential inter-arrival times at ``rate_rps``;
* ``gamma``: gamma inter-arrival times of mean 1/rate and coefficient of variation ``cv`` (shape
  1/cv²; cv = 1 is Poisson, cv > 1 bursty, as vLLM's ``benchmark_serving --burstiness 1/cv²``);
* ``concurrency``: a closed loop of ``concurrency`` clients, each sending its next request when the
  previous one finishes (engine benchmark clients, e.g. ``genai-perf --concurrency``);
* ``trace``: arrival times and lengths replayed from a CSV, JSONL or Parquet file
  (:func:`read_trace`); ``rate_rps``, when given, rescales its arrival times to that mean rate.

Arrival times are drawn as unit-mean variates divided by the rate, from a stream of the seed
separate from the lengths': the same seed at another rate gives the same requests at scaled times
(common random numbers), so latency curves over rate are smooth and monotone.

Lengths (``Lengths``): ``fixed`` (mean), ``uniform`` (low..high), ``lognormal`` (median ``mean`` and
log-sd ``sigma``, clipped to low..high), ``empirical`` (resampled from ``values``, e.g. a trace's).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

from infersim.errors import InferSimError, choice, require

ARRIVALS = ("poisson", "gamma", "concurrency", "trace")
LENGTH_KINDS = ("fixed", "uniform", "lognormal", "empirical")
MAX_REQUESTS = 10_000_000
TRACE_COLUMNS = {"arrival": ("arrival_s", "timestamp_s", "timestamp", "arrival_time", "arrival_ms"),
                 "isl": ("isl", "input_tokens", "input_length", "prompt_tokens", "prompt_len"),
                 "osl": ("osl", "output_tokens", "output_length", "completion_tokens", "output_len")}


@dataclass(frozen=True)
class Lengths:
    """A distribution of token counts (see the module docstring); values are integers >= 1."""

    kind: str = "fixed"
    mean: float = 1024
    low: int = 1
    high: int = 1 << 20
    sigma: float = 0.5
    values: tuple = ()

    def __post_init__(self) -> None:
        choice("length distribution", self.kind, LENGTH_KINDS)
        require(self.mean >= 1 and 1 <= self.low <= self.high,
                f"lengths need mean >= 1 and 1 <= low <= high, got {self.mean}, {self.low}, {self.high}")
        require(self.kind != "empirical" or len(self.values) > 0, "empirical lengths need values")
        require(self.sigma >= 0, f"sigma must be >= 0, got {self.sigma}")

    @classmethod
    def of(cls, v) -> "Lengths":
        """An int is a fixed length; a Lengths stays itself."""
        if isinstance(v, Lengths):
            return v
        require(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1,
                f"a length must be a positive integer or a Lengths, got {v!r}")
        return cls("fixed", mean=int(v))

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        if self.kind == "fixed":
            out = np.full(n, round(self.mean))
        elif self.kind == "uniform":
            out = rng.integers(self.low, self.high + 1, size=n)
        elif self.kind == "lognormal":
            out = np.round(self.mean * np.exp(self.sigma * rng.standard_normal(n)))
        else:
            out = rng.choice(np.asarray(self.values, dtype=np.int64), size=n)
        return np.clip(out, self.low, self.high).astype(np.int64)

    @property
    def max(self) -> int:
        if self.kind == "fixed":
            return int(round(self.mean))
        if self.kind == "empirical":
            return int(min(max(self.values), self.high))
        return int(self.high if self.kind == "uniform" else min(self.high, self.mean * math.exp(5 * self.sigma)))


@dataclass(frozen=True)
class Requests:
    """Sampled traffic: arrival times (ns, sorted; closed loop: 0 and filled in by the
    simulator), input and output lengths."""

    arrival_ns: np.ndarray
    isl: np.ndarray
    osl: np.ndarray
    concurrency: int | None = None

    def __len__(self) -> int:
        return len(self.isl)


@dataclass(frozen=True)
class Traffic:
    """What arrives: an arrival process at ``rate_rps`` (or ``concurrency`` clients), request
    lengths, ``n_requests`` or ``duration_s``, a prefix-cache hit fraction, a seed."""

    rate_rps: float | None = None
    arrival: str = "poisson"
    cv: float = 1.0
    concurrency: int | None = None
    n_requests: int | None = None
    duration_s: float | None = None
    isl: Lengths | int = 2048
    osl: Lengths | int = 512
    prefix_hit: float = 0.0
    seed: int = 0
    trace: "Requests | None" = field(default=None, compare=False)

    def __post_init__(self) -> None:
        choice("arrival", self.arrival, ARRIVALS)
        object.__setattr__(self, "isl", Lengths.of(self.isl))
        object.__setattr__(self, "osl", Lengths.of(self.osl))
        if self.arrival in ("poisson", "gamma"):
            require(self.rate_rps is not None and math.isfinite(self.rate_rps) and self.rate_rps > 0,
                    f"{self.arrival} arrivals need rate_rps > 0, got {self.rate_rps!r}")
        require(self.arrival != "gamma" or (math.isfinite(self.cv) and self.cv > 0),
                f"gamma arrivals need cv > 0, got {self.cv!r}")
        require(self.arrival != "concurrency" or (isinstance(self.concurrency, int) and self.concurrency >= 1),
                f"concurrency arrivals need concurrency >= 1 clients, got {self.concurrency!r}")
        require(self.arrival != "trace" or self.trace is not None, "trace arrivals need a trace (read_trace)")
        require(self.rate_rps is None or self.rate_rps > 0, f"rate_rps must be > 0, got {self.rate_rps!r}")
        require(0.0 <= self.prefix_hit < 1.0, f"prefix_hit must be in [0, 1), got {self.prefix_hit!r}")
        if self.arrival != "trace":
            require(self.n_requests is not None or self.duration_s is not None,
                    "give n_requests or duration_s")
        require(self.n_requests is None or 1 <= self.n_requests <= MAX_REQUESTS,
                f"n_requests must be in 1..{MAX_REQUESTS}, got {self.n_requests!r}")
        require(self.duration_s is None or self.duration_s > 0, f"duration_s must be > 0, got {self.duration_s!r}")

    def rate_text(self) -> str:
        """What arrives, in words: ``8 req/s (poisson)``, ``64 concurrent clients`` or ``the trace's rate``."""
        if self.rate_rps:
            return f"{self.rate_rps:g} req/s ({self.arrival})"
        return f"{self.concurrency} concurrent clients" if self.arrival == "concurrency" else "the trace's rate"

    def with_rate(self, rate_rps: float) -> "Traffic":
        from dataclasses import replace
        return replace(self, rate_rps=float(rate_rps), trace=self.trace)

    def sample(self) -> Requests:
        """The requests (deterministic in the seed)."""
        if self.arrival == "trace":
            return self._replay()
        n = self._count()
        rng_len = np.random.default_rng([self.seed, 1])
        isl, osl = self.isl.sample(rng_len, n), self.osl.sample(np.random.default_rng([self.seed, 2]), n)
        if self.arrival == "concurrency":
            return Requests(np.zeros(n), isl, osl, concurrency=self.concurrency)
        gaps = self._unit_gaps(n)
        arr = np.cumsum(gaps) / self.rate_rps * 1e9
        return Requests(arr - arr[0], isl, osl)

    def _unit_gaps(self, n: int) -> np.ndarray:
        rng = np.random.default_rng([self.seed, 0])
        if self.arrival == "poisson":
            return rng.standard_exponential(n)
        k = 1.0 / self.cv ** 2
        return rng.gamma(k, 1.0 / k, size=n)

    def _count(self) -> int:
        if self.n_requests is not None:
            return int(self.n_requests)
        require(self.rate_rps is not None, "duration_s needs rate_rps (or give n_requests)")
        n = int(self.rate_rps * self.duration_s)
        require(1 <= n <= MAX_REQUESTS, f"rate x duration gives {n} requests; must be in 1..{MAX_REQUESTS}")
        return n

    def _replay(self) -> Requests:
        tr = self.trace
        arr = tr.arrival_ns - tr.arrival_ns[0]
        if self.rate_rps is not None and len(arr) > 1 and arr[-1] > 0:
            arr = arr * ((len(arr) - 1) / (arr[-1] * 1e-9) / self.rate_rps)
        n = len(arr) if self.n_requests is None else min(self.n_requests, len(arr))
        return Requests(arr[:n], tr.isl[:n], tr.osl[:n])


def _column(names, cols: dict, what: str, path) -> str:
    for c in TRACE_COLUMNS[what]:
        if c in cols:
            return c
    raise InferSimError(f"trace {path} has no {what} column; expected one of {', '.join(TRACE_COLUMNS[what])}"
                        f" (found {', '.join(names)})")


def read_trace(path) -> Requests:
    """Arrival times and lengths from a CSV, JSONL or Parquet file: columns ``arrival_s`` (or
    ``timestamp``, ``arrival_ms``, ...), ``isl`` (``input_tokens``, ...), ``osl``
    (``output_tokens``, ...); rows sorted by arrival time."""
    import pathlib

    p = pathlib.Path(path)
    require(p.is_file(), f"trace file not found: {path}")
    suffix = p.suffix.lower()
    choice("trace format", suffix, (".csv", ".jsonl", ".parquet"))
    if suffix == ".parquet":
        import pandas as pd
        cols = {k: np.asarray(v) for k, v in pd.read_parquet(p).to_dict("list").items()}
    elif suffix == ".jsonl":
        recs = [json.loads(line) for line in p.read_text().splitlines() if line.strip()]
        require(recs, f"trace {path} is empty")
        cols = {k: np.asarray([r.get(k) for r in recs]) for k in recs[0]}
    else:
        import csv
        with p.open(newline="") as fh:
            recs = list(csv.DictReader(fh))
        require(recs, f"trace {path} is empty")
        cols = {k: np.asarray([r[k] for r in recs]) for k in recs[0]}
    names = list(cols)
    a, i, o = (_column(names, cols, w, path) for w in ("arrival", "isl", "osl"))
    try:
        arr = cols[a].astype(float) * (1e6 if a == "arrival_ms" else 1e9)
        isl, osl = cols[i].astype(float), cols[o].astype(float)
    except (TypeError, ValueError):
        raise InferSimError(f"trace {path}: arrival and length columns must be numbers") from None
    require(np.all(np.isfinite(arr)) and np.all(isl >= 1) and np.all(osl >= 1),
            f"trace {path}: arrival times must be finite and lengths >= 1")
    order = np.argsort(arr, kind="stable")
    return Requests(arr[order], isl[order].astype(np.int64), osl[order].astype(np.int64))


def trace_lengths(trace: Requests) -> tuple[Lengths, Lengths]:
    """Empirical input and output length distributions of a trace."""
    return (Lengths("empirical", mean=float(trace.isl.mean()), values=tuple(int(v) for v in trace.isl)),
            Lengths("empirical", mean=float(trace.osl.mean()), values=tuple(int(v) for v in trace.osl)))


def parse_arrival(spec: str) -> dict:
    """CLI ``--arrival``: ``poisson``, ``gamma:cv=2``, ``concurrency:n=64``, ``trace:FILE``."""
    kind, _, rest = spec.partition(":")
    choice("arrival", kind, ARRIVALS)
    if kind == "trace":
        require(rest != "", "use --arrival trace:FILE")
        return {"arrival": "trace", "trace": read_trace(rest)}
    out: dict = {"arrival": kind}
    for part in filter(None, rest.split(",")):
        k, _, v = part.partition("=")
        valid = {"gamma": ("cv",), "concurrency": ("n",)}.get(kind, ())
        choice(f"{kind} option", k, valid or ("(none)",))
        try:
            out["cv" if k == "cv" else "concurrency"] = float(v) if k == "cv" else int(v)
        except ValueError:
            raise InferSimError(f"--arrival {spec}: {k} must be a number, got {v!r}") from None
    return out
