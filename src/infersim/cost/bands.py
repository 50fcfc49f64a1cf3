"""The error band each prediction has earned: how far published measurements of its regime fell
from predictions that had never seen them.

``infersim validate`` predicts every published row by a fit that left the row's source out
(leave-one-source-out) and groups the signed errors by **regime** — phase (prefill / decode),
sequences per replica (1, 2-16, 17-128, 129+), vendor (nvidia / amd / other), the runtime's
launch path (graph / cpp / python) and whether the deployment spans nodes. A regime's band is
a tail-to-tail percentile range of ``r = log(predicted time / measured time)`` over its rows,
the tails chosen so that 80 % of rows of sources the band was built without fall inside
(``infersim validate`` measures it: errors within a source are correlated, so the range of
other sources' rows is widened until it holds for a new source). Regimes with fewer than
:data:`MIN_ROWS` rows or :data:`MIN_SOURCES` sources borrow the band of the nearest coarser
regime (a dimension pooled, in the order nodes, vendor, launch, batch, phase). The table is ``bands.json``, written by
``infersim validate --write-bands``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

MIN_ROWS = 10
MIN_SOURCES = 3           # a band from one or two sources measures their testbeds, not the regime
DIMS = ("phase", "batch", "vendor", "launch", "nodes")
#: Pooling order when a regime has too few rows: the last dimension first.
POOL_ORDER = ("nodes", "vendor", "launch", "batch", "phase")
VENDOR_OF_FAMILY = {"hopper": "nvidia", "ampere": "nvidia", "blackwell": "nvidia", "cdna3": "amd"}


def batch_class(seqs_per_replica: float) -> str:
    b = float(seqs_per_replica)
    return "1" if b <= 1 else "2-16" if b <= 16 else "17-128" if b <= 128 else "129+"


def regime(phase: str, seqs_per_replica: float, family: str, launch: str, multi_node: bool) -> dict[str, str]:
    return {"phase": phase, "batch": batch_class(seqs_per_replica), "vendor": VENDOR_OF_FAMILY.get(family, "other"),
            "launch": launch, "nodes": "multi" if multi_node else "single"}


def key(reg: dict[str, str]) -> str:
    return "|".join(reg[d] for d in DIMS)


def coarser(reg: dict[str, str]):
    """The regime and its coarser versions, most specific first ("*" = pooled)."""
    cur = dict(reg)
    yield dict(cur)
    for d in POOL_ORDER:
        cur[d] = "*"
        yield dict(cur)


@dataclass(frozen=True)
class Band:
    """Measured time ≈ predicted × [lo, hi] for ~80 % of held-out published rows of ``regime``."""

    lo: float
    hi: float
    regime: str
    rows: int

    def of(self, value: float) -> tuple[float, float]:
        """The band around a predicted time (for a rate: divide by the factors instead)."""
        return value * self.lo, value * self.hi

    def describe(self, value: float, fmt) -> str:
        """"typically 6.0–8.1 ms on 40 published rows like it (decode, batch 1, NVIDIA, CUDA graphs)"."""
        a, b = (fmt(x) for x in self.of(value))
        unit = a.split(" ")[-1]
        if b.endswith(" " + unit):
            a = a.removesuffix(" " + unit)
        return f"typically {a}–{b} on {self.rows} published rows like it ({words(self.regime)})"


_WORDS = {"batch": lambda v: f"batch {v}", "vendor": {"nvidia": "NVIDIA", "amd": "AMD", "other": "other parts"}.get,
          "launch": {"graph": "CUDA graphs", "cpp": "launched from C++", "python": "launched from Python"}.get,
          "nodes": {"multi": "multi-node", "single": "one node"}.get, "phase": str}


def words(regime_key: str) -> str:
    """A regime key in words, pooled dimensions left out."""
    parts = [_WORDS[d](v) for d, v in zip(DIMS, regime_key.split("|")) if v != "*"]
    return ", ".join(parts) if parts else "all rows"


@lru_cache(maxsize=1)
def table() -> dict[str, dict]:
    try:
        text = (resources.files("infersim") / "cost" / "bands.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    return json.loads(text)["bands"]


def band_for(reg: dict[str, str], bands: dict[str, dict] | None = None) -> Band | None:
    """The band of the most specific regime with enough rows (None when there is no table)."""
    bands = table() if bands is None else bands
    for r in coarser(reg):
        b = bands.get(key(r))
        if b and b["rows"] >= MIN_ROWS and b.get("sources", MIN_SOURCES) >= MIN_SOURCES:
            return Band(b["lo"], b["hi"], key(r), b["rows"])
    return None
