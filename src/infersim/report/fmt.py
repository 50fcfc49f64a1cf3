"""Number formatting for people: times in s / ms / µs with three significant digits (never ns
with four decimals), GB, dollars, tokens/s. Pure functions (no Streamlit): the exports and the
CLI's ``rerun`` print the same strings as the UI."""
from __future__ import annotations

import math


def _sig3(v: float) -> str:
    """Three significant digits without scientific notation: 123, 12.3, 1.23, 0.123."""
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def fmt_time(ns: float) -> str:
    """A duration given in ns: ``1.23 s``, ``12.3 ms``, ``456 µs``, ``0.500 µs``."""
    if ns is None or not math.isfinite(ns):
        return "–"
    if ns >= 1e9:
        return f"{_sig3(ns / 1e9)} s"
    if ns >= 1e6:
        return f"{_sig3(ns / 1e6)} ms"
    return f"{_sig3(ns / 1e3)} µs"


def fmt_ms(ms: float) -> str:
    """A duration given in ms (serving numbers are kept in ms)."""
    return fmt_time(ms * 1e6) if ms is not None else "–"


def time_unit(values_ns) -> tuple[str, float]:
    """(unit, divisor) that suits a column of times: ms when the largest is ≥ 1 ms, else µs."""
    top = max((v for v in values_ns if v is not None and math.isfinite(v)), default=0.0)
    return ("ms", 1e6) if top >= 1e6 else ("µs", 1e3)


def fmt_gb(nbytes: float) -> str:
    return f"{nbytes / 1e9:,.2f} GB" if nbytes < 100e9 else f"{nbytes / 1e9:,.0f} GB"


def fmt_usd(v: float | None) -> str:
    if v is None or not math.isfinite(v):
        return "–"
    return f"${v / 1e6:,.2f}M" if v >= 1e6 else f"${v:,.0f}"


def fmt_price(v: float) -> str:
    """A unit price with sensible digits: $117, $3.42, $0.123."""
    return f"${v:,.0f}" if v >= 100 else (f"${v:.2f}" if v >= 1 else f"${v:.3f}")


def fmt_rate(v: float, unit: str = "tok/s") -> str:
    if v is None or not math.isfinite(v):
        return "–"
    return (f"{v:,.0f} {unit}" if v >= 100 else f"{_sig3(v)} {unit}").rstrip()


def fmt_pct(frac: float) -> str:
    """A relative change as a signed percentage: ``+34%``, ``−2.5%``, ``0%``."""
    p = 100 * frac
    if abs(p) < 0.05:
        return "0%"
    s = f"{abs(p):.0f}" if abs(p) >= 10 else f"{abs(p):.1f}"
    return ("+" if p > 0 else "−") + s + "%"


def fmt_big(v: float, unit: str = "") -> str:
    """A large count in three significant digits with k / M / G (fits a metric tile):
    ``29.6M tok/$``, ``123k``, ``9,403``, ``3.82``."""
    if v is None or not math.isfinite(v):
        return "–"
    for at, div, suffix in ((1e9, 1e9, "G"), (1e6, 1e6, "M"), (1e5, 1e3, "k")):
        if abs(v) >= at:
            return f"{_sig3(v / div)}{suffix} {unit}".rstrip()
    return fmt_rate(v, unit)
