"""Expected maximum load over ranks: the busiest expert-parallel rank sets an MoE layer's time.

With uniform top-k routing of n tokens over E experts split evenly over r = ep ranks:

* token-expert pairs on one rank: each token sends Hypergeometric(E, E/r, k) of its k choices to
  a given rank, so a rank's load is a sum of n such draws, mean n·k/r; it is approximated by
  Binomial(n·k, 1/r) (the same mean, a slightly larger variance: (E−k)/(E−1) of it is exact);
* distinct experts a rank must read: each of its E/r experts is touched with probability
  q = 1 − (1 − k/E)^n, so the count is Binomial(E/r, q) (independent experts).

The expected maximum over r ranks treats the ranks as independent (their loads are weakly
negatively correlated, so this slightly overstates the maximum):

    E[max] = Σ_{x ≥ 0} (1 − F(x)^r)

summed exactly from the binomial CDF when the variance is small, and from the normal
approximation μ + σ·e_r otherwise, with e_r = E[max of r standard normals] (e_2 = 0.564,
e_8 = 1.424, e_64 = 2.344). ``tests/test_moe_imbalance.py`` checks both against a Monte Carlo of
the actual routing. With r = 1 every formula returns the mean, so ep = 1 costs as before.
Values are cached per distinct (trials, p, r): a sweep has few of them.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

_NORMAL_VAR = 30.0      # above this variance the normal approximation is used


@lru_cache(maxsize=None)
def expected_max_std_normal(r: int) -> float:
    """E[max of r iid N(0, 1)] by quadrature of r·x·φ(x)·Φ(x)^(r−1)."""
    if r <= 1:
        return 0.0
    x = np.linspace(-12.0, 12.0, 24001)
    phi = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    cdf = np.array([0.5 * (1.0 + math.erf(v / math.sqrt(2.0))) for v in x])
    return float(np.trapezoid(x * r * phi * cdf ** (r - 1), x))


@lru_cache(maxsize=65536)
def _expected_max(trials: float, p: float, r: int) -> float:
    mean = trials * p
    if r <= 1 or trials <= 0 or p <= 0.0:
        return mean
    if p >= 1.0:
        return trials
    var = trials * p * (1.0 - p)
    if var > _NORMAL_VAR:
        return min(trials, mean + math.sqrt(var) * expected_max_std_normal(r))
    n = int(round(trials))
    top = min(n, int(mean + 12.0 * math.sqrt(var) + 30))
    xs = np.arange(top + 1)
    lg = np.array([math.lgamma(n + 1) - math.lgamma(x + 1) - math.lgamma(n - x + 1) for x in xs])
    pmf = np.exp(lg + xs * math.log(p) + (n - xs) * math.log1p(-p))
    cdf = np.minimum(np.cumsum(pmf), 1.0)
    return float(np.sum(1.0 - cdf[:n] ** r)) if top >= n else float(np.sum(1.0 - cdf ** r))


def expected_max_binomial(trials, p, ranks) -> np.ndarray:
    """E[max over ``ranks`` iid Binomial(trials, p)], elementwise over broadcast arrays."""
    t, pp, r = np.broadcast_arrays(np.asarray(trials, float), np.asarray(p, float),
                                   np.asarray(ranks, float))
    rows = np.stack([t.ravel(), pp.ravel(), r.ravel()], axis=1)
    uniq, inv = np.unique(rows, axis=0, return_inverse=True)
    vals = np.array([_expected_max(float(a), float(b), int(c)) for a, b, c in uniq])
    return vals[inv.ravel()].reshape(t.shape)


def busiest_rank_pairs(n_tokens, k: int, ep) -> np.ndarray:
    """Expected token-expert pairs on the busiest of ``ep`` ranks (n tokens, top-k routing)."""
    return expected_max_binomial(np.round(n_tokens * k), 1.0 / np.asarray(ep, float), ep)


def busiest_rank_experts(n_tokens, k: int, n_experts: int, ep) -> np.ndarray:
    """Expected distinct experts the busiest of ``ep`` ranks must read (E/ep local experts)."""
    q = 1.0 - (1.0 - k / n_experts) ** np.asarray(n_tokens, float)
    return expected_max_binomial(n_experts / np.asarray(ep, float), q, ep)
