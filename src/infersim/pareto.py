"""2-D Pareto frontier (both objectives minimised) in O(n log n)."""
from __future__ import annotations

import numpy as np


def pareto_front(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the points not dominated on (x ↓, y ↓), ordered by increasing x.

    A point is dominated when another is no worse on both and better on one. Sort by x, then y;
    sweep keeping each point whose y is strictly below every y seen so far: O(n log n) for the sort,
    O(n) for the sweep. Exact duplicates are all kept (none dominates the other)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    order = np.lexsort((y, x))
    keep = []
    best_y = np.inf
    last = None
    for i in order:
        if y[i] < best_y:
            keep.append(i)
            best_y = y[i]
            last = (x[i], y[i])
        elif last is not None and (x[i], y[i]) == last:
            keep.append(i)
    return np.asarray(keep, dtype=np.int64)
