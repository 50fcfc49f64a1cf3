"""2-D Pareto frontier (both objectives minimised) in O(n log n), vectorised."""
from __future__ import annotations

import numpy as np


def pareto_front(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the points not dominated on (x ↓, y ↓), ordered by increasing x.

    A point is dominated when another is no worse on both and better on one. Sort by x, then y;
    a point is kept when its y is strictly below every y before it (a running minimum), and
    exact duplicates of a kept point are all kept (none dominates the other): O(n log n) for
    the sort, O(n) NumPy passes for the sweep."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    order = np.lexsort((y, x))
    xs, ys = x[order], y[order]
    if not len(order):
        return np.empty(0, dtype=np.int64)
    before = np.concatenate(([np.inf], np.minimum.accumulate(ys)[:-1]))
    strict = ys < before
    # runs of identical points share the verdict of their first point
    new_run = np.concatenate(([True], (xs[1:] != xs[:-1]) | (ys[1:] != ys[:-1])))
    run_first = np.flatnonzero(new_run)[np.cumsum(new_run) - 1]
    return order[strict[run_first]].astype(np.int64)
