"""The fit's evaluator: every row's cost-model terms built once, re-combined per parameter set.

A row is one or more *steps* (a static row: its prefill and its mean decode step; a continuous
row: its decode step at the batch, a prompt chunk and a weights-only step). A step's terms come
from :func:`infersim.cost.prepare` on the uncalibrated preset; what the parameters change enters
as follows, with the cost model's own functions:

    tc = tc₀ / (f_c · q),  tm = tm₀ / (f_m · q_attn),  t_op = op_time(tc, tm, kernels · lat · lm, overlap)
    device = Σ t_op · mult + collectives + collective calls · library latency + launches · gap · lm
    A, after = host_exposed(device, launches · host_ns_per_launch, step_host_ns(runtime, sequences), overlap)
    step = A + after

with f_c, f_m the calibration factors of the op's efficiency tables (``scaled_factor``), q the
runtime's GEMM or attention efficiency, lat the family's kernel latency and lm the runtime's
launch multiplier. Rows with pipeline or context parallelism go through the public API instead.
"""
from __future__ import annotations

import numpy as np

from infersim import cost
from infersim.cost.evaluate import KLASSES, _comm_times, host_exposed, kernel_quality, op_time
from infersim.presets.hardware_presets import HW_PRESETS, RAW_PRESETS
from infersim.presets.runtime_presets import BASE_RUNTIMES
from infersim.serving.model import (
    DEFAULT_CHUNK_TOKENS,
    WEIGHTS_ONLY,
    Request,
    chunk_workload,
    continuous_times,
    one_per_replica,
)
from infersim.specs.efficiency import KIND_OF, scaled_factor
from infersim.specs.parallel import ParArrays
from infersim.specs.workload import Workload
from infersim.validation.fit import assignments, hardware_for, runtime_for
from infersim.validation.rows import Measurement, predict, scored, serving_batch


class _Ops:
    """Flat per-operator arrays over every step of every decomposed row."""

    def __init__(self):
        self.cols: dict[str, list] = {k: [] for k in ("tc0", "tm0", "kern", "mult", "klass", "step",
                                                      "cpair", "mpair")}

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: np.asarray(v, dtype=np.int64 if k in ("step", "cpair", "mpair", "klass") else float)
                for k, v in self.cols.items()}


class Harness:
    """Predicts every row of ``rows`` for a parameter set (see the module docstring)."""

    def __init__(self, rows: list[Measurement], runtime_of, use=None):
        self.rows, self.runtime_of = rows, runtime_of
        self.pairs: dict[tuple[str, str], int] = {}       # (hw name, efficiency kind) → index
        self.tops: list[float] = []
        self._ops = _Ops()
        self.step_hw, self.step_rt, self.step_comm, self.step_k, self.step_seqs = [], [], [], [], []
        self.step_calls: list = []          # collective calls per step: (in a node, across nodes)
        self.row_steps: list[list[tuple[int, float]] | None] = []
        self.row_batch: list[int] = []        # the batch each row runs at
        self.row_cap: list[int] = []          # ... and its KV capacity (continuous rows)
        for row in rows:
            self.row_steps.append(self._add_row(row))
        self.ops = self._ops.arrays()
        self.step_comm, self.step_k, self.step_seqs = (np.asarray(a, dtype=float) for a in
                                                       (self.step_comm, self.step_k, self.step_seqs))
        self.step_calls = np.asarray(self.step_calls, dtype=float).reshape(-1, 2)
        self.slow = [i for i, s in enumerate(self.row_steps) if s is None]
        self.capacity = self.row_cap
        use = np.ones(len(rows), bool) if use is None else np.asarray(use, bool)
        #: rows the fit and the scores use: not excluded, and not a TTFT that measures a queue
        self.scored = use & np.array([scored(r, c) for r, c in zip(rows, self.capacity)])

    # ----- building ----------------------------------------------------------------------------

    def _pair(self, hw_name: str, table: str) -> int:
        kind = KIND_OF[table]
        key = (hw_name, kind)
        if key not in self.pairs:
            self.pairs[key] = len(self.tops)
            self.tops.append(max(e for _, e in getattr(RAW_PRESETS[hw_name], table)))
        return self.pairs[key]

    def _add_step(self, row: Measurement, rows: ParArrays, wl: Workload) -> int | None:
        hw = RAW_PRESETS[row.hw]
        terms = cost.prepare(row.model_spec, hw, rows, wl)
        if np.any(terms.pp > 1) or np.any(terms.cp > 1):
            return None
        s = len(self.step_hw)
        links = np.array([[hw.bw_intra_gbs, hw.bw_inter_gbs, hw.bw_intersip_gbs]])
        comm = _comm_times(terms, links, breakdown=False)["kinds"]
        self.step_comm.append(float(sum(np.ravel(v)[0] for v in comm.values())))
        self.step_k.append(float(sum(v[0] for v in terms.kernels.values())))
        calls = [sum(float(np.ravel(c[j])[0]) for c in terms.coll_calls.values()) for j in (0, 1)]
        self.step_calls.append(calls)
        self.step_seqs.append(float(terms.seqs[0]))
        self.step_hw.append(row.hw)
        self.step_rt.append(self.runtime_of(row))
        c = self._ops.cols
        for op in terms.ops:
            c["tc0"].append(float(op.f[0]) / (hw.peak_tflops_f16 * 1e3))
            c["tm0"].append(float(op.m[0]) / hw.bw_hbm_gbs)
            c["kern"].append(op.kernels)
            c["mult"].append(op.mult)
            c["klass"].append(KLASSES.index(op.klass))
            c["step"].append(s)
            c["cpair"].append(self._pair(row.hw, op.ctable))
            c["mpair"].append(self._pair(row.hw, op.mtable))
        return s

    def _add_row(self, row: Measurement) -> list[tuple[int, float]] | None:
        if row.batching == "static":
            steps = [(self._add_step(row, ParArrays.from_configs([row.par()], wl), wl), n) for wl, n in row.steps()]
            self.row_batch.append(row.batch)
            self.row_cap.append(row.batch)
        else:
            batch, cap = serving_batch(row, HW_PRESETS[row.hw], BASE_RUNTIMES[self.runtime_of(row)])
            self.row_batch.append(batch)
            self.row_cap.append(cap)
            if batch == 0:
                return []
            req = Request(row.isl, row.osl)
            wl = Workload("decode", s_kv=row.isl + row.osl, batch=batch)
            m = 1 if row.pp == 1 else min(row.pp, batch)
            rows = ParArrays.from_configs([row.par(microbatches=m)], wl).with_batch(np.array([batch]))
            one = one_per_replica(rows)
            steps = [(self._add_step(row, rows, req.decode_mean()), 1.0),
                     (self._add_step(row, one, chunk_workload(req, DEFAULT_CHUNK_TOKENS)), 1.0),
                     (self._add_step(row, one, WEIGHTS_ONLY), 1.0)]
        return None if any(s is None for s, _ in steps) else steps

    # ----- evaluating --------------------------------------------------------------------------
    def _factors(self, values) -> np.ndarray:
        out = np.empty(len(self.tops))
        for (hw_name, kind), i in self.pairs.items():
            fam = RAW_PRESETS[hw_name].family
            s = values.get(("hardware", fam), {}).get(kind, 1.0) if fam else 1.0
            out[i] = scaled_factor(self.tops[i], s, kind)
        return out

    def step_times(self, params: dict[str, float]) -> np.ndarray:
        values = assignments(params)
        f = self._factors(values)
        hws = {n: hardware_for(n, params) for n in set(self.step_hw)}
        rts = {n: runtime_for(n, params) for n in set(self.step_rt)}
        st = [rts[n] for n in self.step_rt]
        sh = [hws[n] for n in self.step_hw]
        col = lambda fn: np.array([fn(r) for r in st])  # noqa: E731
        gap, lm, host = col(lambda r: r.kernel_gap_ns), col(lambda r: r.launch_multiplier), col(lambda r: r.host_ns_per_launch())
        fixed, seq = col(lambda r: r.step_fixed_ns), col(lambda r: r.seq_ns)
        # per step and operator class, the runtime's kernel quality (compute, memory)
        quality = np.array([[kernel_quality(k, r) for k in KLASSES] for r in st])      # (steps, classes, 2)
        lat = np.array([h.kernel_latency_ns for h in sh])
        ov = np.array([h.ridge_overlap for h in sh])
        o = self.ops
        s = o["step"]
        q = quality[s, o["klass"]]
        tc = o["tc0"] / (f[o["cpair"]] * q[:, 0])
        tm = o["tm0"] / (f[o["mpair"]] * q[:, 1])
        t = op_time(tc, tm, o["kern"] * lat[s] * lm[s], ov[s])
        calls = self.step_calls[:, 0] * col(lambda r: r.collective_ns) + self.step_calls[:, 1] * col(lambda r: r.net_collective_ns)
        device = (np.bincount(s, t * o["mult"], minlength=len(st)) + self.step_comm + calls
                  + self.step_k * gap * lm)
        a, after = host_exposed(device, self.step_k * host, fixed + seq * self.step_seqs, col(lambda r: r.host_overlap))
        return a + after

    def prefill_share(self, params: dict[str, float]) -> np.ndarray:
        """Per row, the share of its measured interval spent in prefill (continuous rows: a TTFT
        is all prefill, anything else the decode steady state)."""
        lat = self.step_times(params) if len(self.step_hw) else np.zeros(0)
        out = np.zeros(len(self.rows))
        for i, (row, steps) in enumerate(zip(self.rows, self.row_steps)):
            if row.metric == "ttft_ms":
                out[i] = 1.0
            elif row.batching == "static" and steps and len(steps) == 2:
                (pre, n0), (dec, n1) = steps
                out[i] = n0 * lat[pre] / (n0 * lat[pre] + n1 * lat[dec])
        return out

    def predict(self, params: dict[str, float]) -> np.ndarray:
        """Every row's predicted metric (NaN where no sequence fits)."""
        lat = self.step_times(params) if len(self.step_hw) else np.zeros(0)
        out = np.empty(len(self.rows))
        for i, (row, steps) in enumerate(zip(self.rows, self.row_steps)):
            if steps is None:
                out[i] = predict(row, hardware_for(row.hw, params), runtime_for(self.runtime_of(row), params))
            elif not steps:
                out[i] = np.nan
            elif row.batching == "static":
                out[i] = row.metric_of(sum(n * lat[s] for s, n in steps))
            else:
                out[i] = _continuous_metric(row, self.row_batch[i], *(lat[s] for s, _ in steps))
        return out


def _continuous_metric(row: Measurement, batch: int, t_dec: float, t_chunk: float, t_w: float) -> float:
    per_replica = np.ceil(batch / row.dp)
    ttft, tpot = continuous_times(t_dec, t_chunk, t_w, Request(row.isl, row.osl), per_replica,
                                  DEFAULT_CHUNK_TOKENS)
    return float({"tok_s_total": batch / (tpot * 1e-9), "tpot_ms": tpot / 1e6, "ttft_ms": ttft / 1e6}[row.metric])
