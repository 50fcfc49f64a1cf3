"""Serving under traffic: the Serving tab's best deployment served at a request rate — requests
arriving, queueing and batching as an engine schedules them (:mod:`infersim.serving.load`).
Answer first (the deployment, its p99 TTFT/TPOT at the rate, what saturates it), then the
latency distributions and the queue / KV cache over time. Runs on its button only."""
from __future__ import annotations

import streamlit as st

from infersim.report import plots as charts
from infersim.serving import Traffic, simulate_traffic
from infersim.serving.answer import traffic_lines
from infersim.serving.capacity import saturation_rps
from infersim.serving.scheduler import Scheduler
from infersim.specs.parallel import ParArrays
from infersim.specs.workload import Workload
from infersim.ui import widgets as w

ARRIVALS = ("poisson", "gamma")
PERCENTILE = 99


def _saturation(res: dict) -> float:
    """Steady-state request rate the best deployment sustains (the traffic defaults to 80% of it)."""
    r, run = res["outcome"].result, res["run"]
    b, req = r.best, r.request
    cfg = ParArrays.from_configs([b.par], Workload("decode", s_kv=req.isl + req.osl, batch=b.par.dp))
    return float(saturation_rps(res["model"], res["hw"], cfg, req, Scheduler(), run.runtime)[0][0])


def _controls(sat: float, req) -> Traffic:
    """The traffic the controls describe, of the SLA search's request shape ``req``."""
    c = st.columns(4)
    rate = float(w.number(c[0], "Request rate (req/s)", "tr_rate", round(max(0.8 * sat, 0.01), 2),
                          min_value=0.01, format="%.2f"))
    arrival = w.select(c[1], "Arrivals", ARRIVALS, "tr_arrival")
    cv = float(w.number(c[2], "Burstiness (CV)", "tr_cv", 2.0, min_value=0.1, step=0.5,
                        disabled=arrival != "gamma"))
    n = int(w.number(c[3], "Requests", "tr_n", 2000, min_value=100, max_value=100_000, step=500))
    return Traffic(rate_rps=rate, arrival=arrival, cv=cv if arrival == "gamma" else 1.0, n_requests=n,
                   isl=req.isl, osl=req.osl, prefix_hit=req.prefix_hit)


def render(res: dict) -> None:
    """The traffic section under the Serving tab's result (nothing when no deployment meets the SLA)."""
    r, run = res["outcome"].result, res["run"]
    if r.best is None:
        return
    st.subheader("Under traffic")
    box = st.container(border=True, key="tr_box")
    sat = w.guarded(box, _saturation, res)
    traffic = w.guarded(box, _controls, sat or 1.0, r.request)
    if traffic is None:
        return
    stamp = (id(res), traffic)
    if st.button("Simulate traffic", key="btn_tr_run",
                 help=f"Serve {traffic.n_requests:,} requests on {r.best.par.describe()} at the rate above."):
        with box, st.spinner("simulating requests through the scheduler"):
            tr = w.guarded(box, simulate_traffic, res["model"], res["hw"], r.best.par, traffic, run.runtime)
        st.session_state["tr_result"] = (stamp, tr) if tr is not None else None
    held = st.session_state.get("tr_result")
    if not held or held[0] != stamp:
        box.caption("Set a rate and press **Simulate traffic**: p99 TTFT and TPOT of the best deployment under "
                    "arriving requests (queueing included), in about a second.")
        return
    _show(box, held[1], sat, r.ttft_limit_ms, r.tpot_limit_ms)


def _show(box, tr, sat, ttft_ms, tpot_ms) -> None:
    head, second, third = traffic_lines(tr, sat, ttft_ms, tpot_ms, PERCENTILE)
    w.headline(box, "Under traffic:", head)
    box.markdown(second)
    box.caption(third)
    left, right = box.columns(2)
    left.plotly_chart(charts.traffic_cdf(tr, ttft_ms, tpot_ms), key="fig_tr_cdf")
    right.plotly_chart(charts.traffic_timeline(tr), key="fig_tr_timeline")
