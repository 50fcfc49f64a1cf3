"""Runs of equal labels and their sums in a fixed order.

Rows of the operator and collective tables are stored grouped by kind (and component), so a
kind's time is the sum of one contiguous run of rows. :func:`group_sums` adds a run's rows one
after the other, so one configuration's sums are the same at any batch of configurations (the
scalar ``simulate`` and the vectorised sweeps agree bit for bit).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np


@lru_cache(maxsize=1024)
def runs(labels: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[slice, ...]]:
    """(label of each run, its slice) of consecutive equal ``labels``: the groups
    :func:`group_sums` adds."""
    starts = [i for i in range(len(labels)) if i == 0 or labels[i] != labels[i - 1]]
    ends = starts[1:] + [len(labels)]
    return tuple(labels[i] for i in starts), tuple(slice(a, b) for a, b in zip(starts, ends))


@lru_cache(maxsize=1024)
def sorted_runs(labels: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], tuple[slice, ...]], np.ndarray]:
    """(:func:`runs` of ``labels`` sorted, the order that sorts them)."""
    order = sorted(range(len(labels)), key=lambda i: labels[i])
    return runs(tuple(labels[i] for i in order)), np.array(order, dtype=np.intp)


def group_sums(x: np.ndarray, slices: tuple[slice, ...], axis: int = 0) -> list[np.ndarray]:
    """Σ of ``x`` along ``axis`` over each of ``slices``, added one row after the other: the same
    order at any N (NumPy's reductions sum pairwise where the summed axis is contiguous, as it
    is for one config, so a config's sums would depend on how many are evaluated with it)."""
    pre = (slice(None),) * (axis % x.ndim)
    return row_sums([x[pre + (i,)] for i in range(x.shape[axis])], slices)


def row_sums(rows: list, slices: tuple[slice, ...]) -> list[np.ndarray]:
    """Σ of ``rows[sl]`` for each of ``slices``, added one after the other (:func:`group_sums`)."""
    out = []
    for sl in slices:
        part = rows[sl]
        acc = part[0]
        for r in part[1:]:
            acc = acc + r
        out.append(acc)
    return out


def chain_sum(values, start=0):
    """Σ ``values`` added one after the other from ``start``, as ``sum`` did before Python 3.12
    (3.12 adds Python floats with compensation, so one config's float sums would differ in the
    last bit from the same sums over arrays, which add plainly)."""
    acc = start
    for v in values:
        acc = acc + v
    return acc
