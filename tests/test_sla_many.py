"""The SLA searches of many hardware candidates as one give each candidate's own sla_search answer."""
import pytest

from infersim.codesign.auto_hardware import enumerate_hardware
from infersim.hardware_presets import GENERIC_SIP
from infersim.model_presets import PRESETS
from infersim.serving import Request
from infersim.serving.sla import NoDeployment, sla_search
from infersim.serving.sla_many import sla_search_many

GRID = {"pe_hbm_gb": [8.0, 48.0, 96.0], "bw_hbm_gbs": [2000.0, 4000.0], "peak_tflops_f16": [500.0, 1000.0]}


@pytest.mark.parametrize("ttft_ms,tpot_ms", [(None, 50.0), (500.0, 20.0), (2000.0, None)])
def test_many_equals_one_by_one(ttft_ms, tpot_ms):
    model, req = PRESETS["Llama 3.1 70B"].model, Request(2048, 512)
    hws = [c.to_hardware(GENERIC_SIP) for c in enumerate_hardware("custom", GRID, base=GENERIC_SIP.knobs())]
    many = sla_search_many(model, hws, req, ttft_ms, tpot_ms)
    n_fit = 0
    for hw, a in zip(hws, many):
        try:
            r = sla_search(model, hw, req, ttft_ms, tpot_ms, disaggregated=False, single_replica=True)
            ref = (r.best, r.nearest_miss, r.limit, True)
            n_fit += 1
        except NoDeployment:
            ref = (None, None, "memory: not one sequence fits", False)
        assert (a.best, a.nearest_miss, a.limit, a.fits) == ref, hw.knobs()
    assert n_fit >= 8                       # the 8 GB candidates may hold nothing; the rest must


def test_prepared_terms_are_kept_from_the_second_request():
    """Second-hit admission: one-off rows (batch probes) are priced but not kept, so they never
    evict the grid that every candidate of a capacity reuses; a kept entry is the same terms."""
    import numpy as np

    from infersim.serving import steps
    from infersim.specs.parallel import Parallelism, ParArrays
    from infersim.specs.workload import Workload

    model, wl = PRESETS["Llama 3.1 8B"].model, Workload("decode", s_kv=1024, batch=7)
    rows = ParArrays.from_configs([Parallelism(tp=2), Parallelism(tp=4)], wl).with_batch(np.array([7, 13]))
    steps._TERMS.clear(), steps._SEEN.clear()
    steps._TERMS_ROWS[0] = 0
    first = steps.prepared_terms(model, GENERIC_SIP, rows, wl)
    assert not steps._TERMS and len(steps._SEEN) == 1          # seen once: priced, not kept
    second = steps.prepared_terms(model, GENERIC_SIP, rows, wl)
    assert len(steps._TERMS) == 1 and not steps._SEEN and steps._TERMS_ROWS[0] == 2
    assert steps.prepared_terms(model, GENERIC_SIP, rows, wl) is second      # kept from now on
    for a, b in zip(first.ops, second.ops):
        assert np.array_equal(a.f, b.f) and np.array_equal(a.m, b.m)
