"""One step of many (config, batch) rows through the cost model, with the knob-free stage memoised:
the serving model, the speculative-decoding drafter and the SLA search all price their steps here."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from infersim import cost
from infersim.presets.runtime_presets import get_runtime
from infersim.specs.hardware import HardwareSpec
from infersim.specs.parallel import FIELDS, ParArrays
from infersim.specs.workload import Workload

#: Prepared terms of recent (model, hardware less its knobs, rows, workload): the knob-free
#: stage of the cost model, shared by hardware candidates that differ only in knobs (an SLA
#: co-design sweep searches the same rows on every candidate).
_TERMS: OrderedDict = OrderedDict()
_TERMS_MAX_ROWS = 50_000        # rows kept (~1.4 KB of terms per row): the brackets of the capacities a chunk shares; more costs memory and no time
_TERMS_ROWS = [0]               # rows held now (kept as a count: summing per insert is quadratic)
#: Keys asked for once: terms are kept from a key's second request on, so that one-off rows (an
#: SLA search's batch probes) never evict the grid every candidate reuses.
_SEEN: OrderedDict = OrderedDict()
_SEEN_MAX = 1024


def _rows_digest(rows: ParArrays) -> tuple:
    """The rows' columns as a key: which are set, their shape and dtype, their column sums and a
    64-bit hash of their bytes (Python's own bytes hash, 3-5x faster than blake2b on these
    sizes; the key is only compared within one process)."""
    cols = [getattr(rows, f) for f in FIELDS + ("batch",)]
    have = tuple(c is not None for c in cols)
    data = np.stack([np.asarray(c) for c in cols if c is not None])
    return have, data.shape, data.dtype.str, tuple(data.sum(axis=1).tolist()), hash(data.tobytes())


def prepared_terms(model, hw: HardwareSpec, rows: ParArrays, wl: Workload) -> cost.Terms:
    """``cost.prepare`` memoised on (model, hardware less its knobs, rows, workload), from the
    second request of a key on (second-hit admission: see :data:`_SEEN`)."""
    key = (model, hw.without_knobs(), wl, _rows_digest(rows))
    if key in _TERMS:
        _TERMS.move_to_end(key)
        return _TERMS[key]
    terms = cost.prepare(model, hw, rows, wl)
    if key not in _SEEN:
        _SEEN[key] = None
        while len(_SEEN) > _SEEN_MAX:
            _SEEN.popitem(last=False)
        return terms
    del _SEEN[key]
    _TERMS[key] = terms
    _TERMS_ROWS[0] += len(terms)
    while len(_TERMS) > 1 and _TERMS_ROWS[0] > _TERMS_MAX_ROWS:
        _TERMS_ROWS[0] -= len(_TERMS.popitem(last=False)[1])
    return terms


def step_terms(model, hw, rows: ParArrays, wl: Workload, runtime) -> cost.Terms:
    """The prepared terms of one step under ``runtime`` (its view of the model), not evaluated:
    what a memory check needs (``mem_bytes``, ``fits``)."""
    return prepared_terms(get_runtime(runtime).model_for(model), hw, rows, wl)


def step(model, hw, rows: ParArrays, wl: Workload, runtime, knobs: dict | None = None) -> tuple[dict, cost.Terms]:
    """One step of every row on ``hw`` (its knobs passed explicitly: the terms may have been
    prepared for a candidate with other knobs). ``knobs``: arrays of shape ``(H, 1)`` over H
    candidates of ``hw``'s topology instead, giving ``(H, N)`` results."""
    terms = step_terms(model, hw, rows, wl, runtime)
    return cost.evaluate(terms, hw.knobs() if knobs is None else knobs, runtime=runtime, breakdown=False), terms


