"""Objectives: the one registry every search ranks by (explorer pick, co-design per-candidate
pick, ``best``, the Pareto frontier's performance axis, sensitivity and "what it takes").

An :class:`Objective` states two things about a (hardware, parallelism) pair:

* ``config_score(latency_ns, period_ns, pes)`` — lower is better; orders the configs of ONE
  hardware (the explorer's and the sweep's per-candidate pick). It must depend on nothing that
  is constant across one hardware's configs, and it must not increase when a link, HBM or
  compute knob grows (the sweep's exact pruning relies on that: see ``codesign.search``).
  ``inf`` marks an infeasible pair (room for a future SLA objective).
* ``value(perf)`` — the objective in its own unit, comparable across hardware (it may use the
  per-PE economics). For one hardware it orders configs exactly as ``config_score`` does.

Registered objectives (``tokens`` = batch · new tokens of the step; throughput = tokens / period):

=================  ==========================================  =========  =========
name               value                                       unit       better
=================  ==========================================  =========  =========
latency            latency                                     ns         lower
throughput         tokens / period                             tok/s      higher
throughput_per_pe  throughput / PEs used                       tok/s/PE   higher
tok_s_per_usd      throughput · 3600 / (PEs · TCO $ per PE-h)  tok/$      higher
tok_s_per_w        throughput / (PEs · system W per PE)        tok/J      higher
=================  ==========================================  =========  =========

``tok_s_per_usd`` is tokens per dollar of total cost of ownership (amortised capex + energy at
the :class:`~infersim.codesign.economics.Economics` assumptions, divided by its utilisation); within one
hardware both economic objectives rank like ``throughput_per_pe`` (cost and power per PE are
constant there). Adding an objective is one :func:`register` call.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from infersim.errors import choice
from infersim.specs.registry import Registry

SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True)
class Perf:
    """What an objective may read, per pair (NumPy arrays or floats that broadcast).

    ``usd_per_h_per_pe``: TCO of one PE per hour of service (capex amortised + energy, divided by
    the utilisation); ``power_w_per_pe``: system power per PE (W)."""

    latency_ns: np.ndarray
    period_ns: np.ndarray
    pes: np.ndarray
    tokens: float
    usd_per_h_per_pe: np.ndarray | float = 1.0
    power_w_per_pe: np.ndarray | float = 1.0

    @property
    def tokens_per_s(self):
        return self.tokens / (np.asarray(self.period_ns, dtype=float) * 1e-9)


@dataclass(frozen=True)
class Objective:
    name: str
    label: str                     # short column header
    unit: str
    maximise: bool
    config_score: Callable         # (latency_ns, period_ns, pes) -> lower-is-better score
    value: Callable[[Perf], np.ndarray]
    description: str

    def score(self, value):
        """Lower-is-better form of ``value`` (the objective's own unit)."""
        return -np.asarray(value, dtype=float) if self.maximise else np.asarray(value, dtype=float)

    def gain(self, new: float, base: float) -> float:
        """Relative improvement of ``new`` over ``base`` (> 0: better): base/new − 1 for a
        lower-is-better objective, new/base − 1 otherwise."""
        return (new / base if self.maximise else base / new) - 1.0

    def goodness(self, value):
        """A positive quantity that grows when the objective improves (value, or 1/value)."""
        v = np.asarray(value, dtype=float)
        return v if self.maximise else 1.0 / v


def _per_batch(latency_ns, period_ns, pes):
    return np.asarray(latency_ns, dtype=float)


def _per_period(latency_ns, period_ns, pes):
    return -1.0 / np.asarray(period_ns, dtype=float)


def _per_period_pe(latency_ns, period_ns, pes):
    return -1.0 / (np.asarray(period_ns, dtype=float) * pes)


OBJECTIVES: Registry[Objective] = Registry("objective")


def register(obj: Objective) -> None:
    OBJECTIVES.register(obj.name, obj)


for _o in (
    Objective("latency", "latency", "ns", False, _per_batch, lambda p: np.asarray(p.latency_ns, float),
              "time per step: decode time per token (TPOT), prefill time for the batch"),
    Objective("throughput", "tok/s", "tok/s", True, _per_period, lambda p: p.tokens_per_s,
              "steady-state tokens per second of the deployment"),
    Objective("throughput_per_pe", "tok/s/PE", "tok/s/PE", True, _per_period_pe,
              lambda p: p.tokens_per_s / p.pes, "tokens per second per PE used"),
    Objective("tok_s_per_usd", "tok/$", "tok/$", True, _per_period_pe,
              lambda p: p.tokens_per_s * SECONDS_PER_HOUR / (p.pes * p.usd_per_h_per_pe),
              "tokens per dollar of TCO (amortised capex + energy) of the PEs used"),
    Objective("tok_s_per_w", "tok/J", "tok/s/W", True, _per_period_pe,
              lambda p: p.tokens_per_s / (p.pes * p.power_w_per_pe),
              "tokens per second per watt of system power of the PEs used"),
):
    register(_o)


def get_objective(name) -> Objective:
    """The registered objective ``name`` (one-line error naming the valid ones)."""
    choice("objective", name, OBJECTIVES.names())
    return OBJECTIVES[name]
