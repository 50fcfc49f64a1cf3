"""The fit's evaluator: every row's cost-model terms built once, re-combined per parameter set.

A row is one or more *steps* (a static row: its prefill and its mean decode step; a continuous
row: its decode step at the batch, a prompt chunk, a weights-only step and, for a finite run, the
decode step of its last wave). A step's terms come
from :func:`infersim.cost.prepare` on the uncalibrated preset; what the parameters change enters
as follows, with the cost model's own functions:

    tc = tc₀ / (f_c · q),  tm = tm₀ / (f_m · q_attn),  t_op = op_time(tc, tm, kernels · lat · lm, overlap)
    device = Σ t_op · mult + collectives + collective calls · library latency + launches · gap · lm
    A, after = host_exposed(device, launches · host_ns_per_launch, step_host_ns(runtime, sequences), overlap)
    step = A + after

with f_c, f_m the calibration factors of the op's efficiency tables (``scaled_factor``), q the
runtime's GEMM or attention efficiency, lat the family's kernel latency and lm the runtime's
launch multiplier. A context-parallel step adds its exposed ring (``cost.evaluate.exposed_ring``).
Rows with pipeline parallelism go through the public API instead.
"""
from __future__ import annotations

import numpy as np

from infersim import cost
from infersim.cost.evaluate import KLASSES, _comm_times, exposed_ring, host_exposed, kernel_quality, op_time
from infersim.presets.hardware_presets import HW_PRESETS, RAW_PRESETS
from infersim.presets.runtime_presets import BASE_RUNTIMES
from infersim.serving.model import (
    DEFAULT_CHUNK_TOKENS,
    WEIGHTS_ONLY,
    Request,
    chunk_workload,
    continuous_times_of,
    finite_run,
    last_wave,
    one_per_replica,
    synced_replicas,
)
from infersim.specs.efficiency import KIND_OF, scaled_factor
from infersim.specs.parallel import ParArrays
from infersim.specs.workload import Workload
from infersim.validation.fit import PARAMS, assignments, hardware_for, hw_group, runtime_for
from infersim.validation.rows import Measurement, predict, scored, serving_batch


class _Ops:
    """Flat per-operator arrays over every step of every decomposed row."""

    def __init__(self):
        self.cols: dict[str, list] = {k: [] for k in ("tc0", "tm0", "kern", "ramp", "mult", "klass", "step",
                                                      "cpair", "mpair")}

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: np.asarray(v, dtype=np.int64 if k in ("step", "cpair", "mpair", "klass") else float)
                for k, v in self.cols.items()}


class Harness:
    """Predicts every row of ``rows`` for a parameter set (see the module docstring).

    ``hardware`` (name → base spec) and ``runtimes`` (name → base runtime) replace the shipped
    presets as the bases the parameters of ``spec`` apply to (a user's own machine and stack:
    :mod:`infersim.validation.calibrate`); by default the uncalibrated presets (``RAW_PRESETS``,
    the calibrated ones for a continuous row's KV capacity) and ``BASE_RUNTIMES``."""

    def __init__(self, rows: list[Measurement], runtime_of, use=None, hardware=None, runtimes=None,
                 spec=PARAMS):
        self.rows, self.runtime_of = rows, runtime_of
        self.raw_hw = RAW_PRESETS if hardware is None else hardware
        self.cap_hw = HW_PRESETS if hardware is None else hardware
        self.base_rt = BASE_RUNTIMES if runtimes is None else runtimes
        self.spec = tuple(spec)
        self.pairs: dict[tuple[str, str], int] = {}       # (hw name, efficiency kind) → index
        self.tops: list[float] = []
        self._ops = _Ops()
        self.step_hw, self.step_rt, self.step_comm, self.step_k, self.step_seqs = [], [], [], [], []
        self.step_calls: list = []          # collective calls per step: (in a node, across nodes)
        #: per step its CP ring: (steps · layers, one step's transfer in ns, cp, its attention op,
        #: 1 where the block attention hides a step)
        self.step_ring: list = []
        self.row_steps: list[list[tuple[int, float]] | None] = []
        self.row_batch: list[int] = []        # the batch each row runs at
        self.row_cap: list[int] = []          # ... and its KV capacity (continuous rows)
        for row in rows:
            self.row_steps.append(self._add_row(row))
        self.ops = self._ops.arrays()
        self.step_comm, self.step_k, self.step_seqs = (np.asarray(a, dtype=float) for a in
                                                       (self.step_comm, self.step_k, self.step_seqs))
        self.step_calls = np.asarray(self.step_calls, dtype=float).reshape(-1, 2)
        ring = np.asarray(self.step_ring, dtype=float).reshape(-1, 5)
        self.ring_mult, self.ring_ns, self.ring_cp = ring[:, 0], ring[:, 1], ring[:, 2]
        self.ring_op = ring[:, 3].astype(np.int64)
        self.ring_hide = ring[:, 4]
        self.slow = [i for i, s in enumerate(self.row_steps) if s is None]
        self.capacity = self.row_cap
        use = np.ones(len(rows), bool) if use is None else np.asarray(use, bool)
        #: rows the fit and the scores use: not excluded, and not a TTFT that measures a queue
        self.scored = use & np.array([scored(r, c) for r, c in zip(rows, self.capacity)])
        self._index()

    def _index(self) -> None:
        """Index arrays that let :meth:`predict` combine step times into metrics without a loop
        over rows: the steps' runtime and hardware, and per row kind its steps and coefficients."""
        self.rt_names, self.step_rt_i = np.unique(np.array(self.step_rt, dtype=object).astype(str), return_inverse=True) \
            if self.step_rt else (np.array([]), np.zeros(0, np.int64))
        self.hw_names, self.step_hw_i = np.unique(np.array(self.step_hw, dtype=object).astype(str), return_inverse=True) \
            if self.step_hw else (np.array([]), np.zeros(0, np.int64))
        st_row, st_step, st_n, cont = [], [], [], []
        for i, (row, steps) in enumerate(zip(self.rows, self.row_steps)):
            if not steps:
                continue
            if row.batching == "static":
                for step, n in steps:
                    st_row.append(i), st_step.append(step), st_n.append(n)
            else:
                cont.append((i, *(step for step, _ in steps)))
        self.st_row, self.st_step = np.array(st_row, np.int64), np.array(st_step, np.int64)
        self.st_n = np.array(st_n, float)
        self.static_rows = np.unique(self.st_row)
        # a static metric is coef · total (latencies) or coef / total (rates)
        coef, per = [], []
        for i in self.static_rows:
            r = self.rows[i]
            latency = r.metric in ("ttft_ms", "tpot_ms", "e2e_latency_ms")
            div = r.batch if r.metric == "decode_tok_s_per_seq" else r.gpus if r.metric == "throughput_tok_s_per_gpu" else 1
            coef.append(1e-6 if latency else r.batch * r.osl * 1e9 / div)
            per.append(latency)
        self.st_coef, self.st_latency = np.array(coef, float), np.array(per, bool)
        c = np.array(cont, np.int64).reshape(-1, 5)
        self.ct_row, self.ct_steps = c[:, 0], c[:, 1:]
        self.ct_batch = np.array([self.row_batch[i] for i in self.ct_row], float)
        dp = np.array([self.rows[i].dp for i in self.ct_row], float)
        self.ct_per = np.ceil(self.ct_batch / dp)
        self.ct_requests = np.array([self.rows[i].requests for i in self.ct_row], float)
        self.ct_per_last = np.ceil(last_wave(self.ct_requests, self.ct_batch) / dp)
        self.ct_new = np.array([Request(self.rows[i].isl, self.rows[i].osl).new_tokens for i in self.ct_row], float)
        self.ct_osl = np.array([self.rows[i].osl for i in self.ct_row], float)
        sync = [synced_replicas(self.rows[i].model_spec, d) for i, d in zip(self.ct_row, dp)]
        self.ct_synced = (np.array([s for s, _ in sync], float), np.array([loc for _, loc in sync], float))
        self.ct_metric = np.array([("tok_s_total", "tpot_ms", "ttft_ms").index(self.rows[i].metric)
                                   for i in self.ct_row], np.int64)

    # ----- building ----------------------------------------------------------------------------

    def _pair(self, hw_name: str, table: str) -> int:
        kind = KIND_OF[table]
        key = (hw_name, kind)
        if key not in self.pairs:
            self.pairs[key] = len(self.tops)
            self.tops.append(max(e for _, e in getattr(self.raw_hw[hw_name], table)))
        return self.pairs[key]

    def _add_step(self, row: Measurement, rows: ParArrays, wl: Workload) -> int | None:
        hw = self.raw_hw[row.hw]
        terms = cost.prepare(self.base_rt[self.runtime_of(row)].model_for(row.model_spec), hw, rows, wl)
        if np.any(terms.pp > 1):
            return None
        s = len(self.step_hw)
        links = np.array([[hw.bw_intra_gbs, hw.bw_inter_gbs, hw.bw_intersip_gbs]])
        comm = _comm_times(terms, links, breakdown=False)
        self.step_comm.append(float(sum(np.ravel(v)[0] for v in comm["kinds"].values())))
        self.step_ring.append((float(terms.ring_mult[0]), float(np.ravel(comm["ring_step"])[0]), float(terms.cp[0]),
                               len(self._ops.cols["tc0"]) + terms.attn_index, float(terms.ring_hide[0])))
        self.step_k.append(float(sum(v[0] for v in terms.kernels.values())))
        calls = [sum(float(np.ravel(c[j])[0]) for c in terms.coll_calls.values()) for j in (0, 1)]
        self.step_calls.append(calls)
        self.step_seqs.append(float(terms.seqs[0]))
        self.step_hw.append(row.hw)
        self.step_rt.append(self.runtime_of(row))
        c = self._ops.cols
        for op, ramp in zip(terms.ops, terms.table.ramp_ns(hw)[:, 0]):
            c["tc0"].append(float(op.f[0]) / (hw.peak_tflops_f16 * 1e3))
            c["tm0"].append(float(op.m[0]) / hw.bw_hbm_gbs)
            c["kern"].append(op.kernels)
            c["ramp"].append(float(ramp))      # measured, not fitted
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
            batch, cap = serving_batch(row, self.cap_hw[row.hw], self.base_rt[self.runtime_of(row)])
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
            last = int(last_wave(row.requests, batch))      # a finite run's last wave
            steps.append(steps[0] if last == batch else
                         (self._add_step(row, rows.with_batch(np.array([last])), req.decode_mean()), 1.0))
        return None if any(s is None for s, _ in steps) else steps

    # ----- evaluating --------------------------------------------------------------------------
    def _hardware(self, name: str, params: dict[str, float]):
        return hardware_for(name, params, self.raw_hw[name], self.spec)

    def _runtime(self, name: str, params: dict[str, float]):
        return runtime_for(name, params, self.base_rt[name], self.spec)

    def _factors(self, values) -> np.ndarray:
        out = np.empty(len(self.tops))
        for (hw_name, kind), i in self.pairs.items():
            s = values.get(("hardware", hw_group(self.raw_hw[hw_name])), {}).get(kind, 1.0)
            out[i] = scaled_factor(self.tops[i], s, kind)
        return out

    def step_times(self, params: dict[str, float]) -> np.ndarray:
        values = assignments(params, self.spec)
        f = self._factors(values)
        rts = [self._runtime(n, params) for n in self.rt_names]
        hws = [self._hardware(n, params) for n in self.hw_names]
        ri, hi = self.step_rt_i, self.step_hw_i

        def col(fn):
            return np.array([fn(r) for r in rts], dtype=float)[ri]
        gap, lm, host = col(lambda r: r.kernel_gap_ns), col(lambda r: r.launch_multiplier), col(lambda r: r.host_ns_per_launch())
        fixed, seq = col(lambda r: r.step_fixed_ns), col(lambda r: r.seq_ns)
        # per runtime and operator class, the runtime's kernel quality (compute, memory)
        quality = np.array([[kernel_quality(k, r) for k in KLASSES] for r in rts])      # (runtimes, classes, 2)
        lat = np.array([h.kernel_latency_ns for h in hws])[hi]
        ov = np.array([h.ridge_overlap for h in hws])[hi]
        o = self.ops
        s = o["step"]
        q = quality[ri[s], o["klass"]]
        tc = o["tc0"] / (f[o["cpair"]] * q[:, 0])
        tm = o["tm0"] / (f[o["mpair"]] * q[:, 1])
        t = op_time(tc, tm, o["kern"] * lat[s] * lm[s], ov[s], o["ramp"])
        calls = self.step_calls[:, 0] * col(lambda r: r.collective_ns) + self.step_calls[:, 1] * col(lambda r: r.net_collective_ns)
        ring = exposed_ring(self.ring_mult, self.ring_ns, t[self.ring_op], self.ring_cp, self.ring_hide)
        device = (np.bincount(s, t * o["mult"], minlength=len(ri)) + self.step_comm + calls
                  + self.step_k * gap * lm + ring)
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
        out = np.full(len(self.rows), np.nan)
        for i in self.slow:
            row = self.rows[i]
            out[i] = predict(row, self._hardware(row.hw, params), self._runtime(self.runtime_of(row), params))
        if len(self.st_row):
            total = np.bincount(self.st_row, lat[self.st_step] * self.st_n, minlength=len(self.rows))[self.static_rows]
            out[self.static_rows] = np.where(self.st_latency, self.st_coef * total, self.st_coef / total)
        if len(self.ct_row):
            t_dec, t_chunk, t_w, t_last = (lat[self.ct_steps[:, j]] for j in range(4))
            ttft, tpot = continuous_times_of(t_dec, t_chunk, t_w, self.ct_new, self.ct_osl, self.ct_per,
                                             DEFAULT_CHUNK_TOKENS, synced=self.ct_synced)
            _, tpot_last = continuous_times_of(t_last, t_chunk, t_w, self.ct_new, self.ct_osl, self.ct_per_last,
                                               DEFAULT_CHUNK_TOKENS, synced=self.ct_synced)
            tok_s, tpot = finite_run(tpot, tpot_last, self.ct_requests, self.ct_batch)
            vals = np.stack([tok_s, tpot / 1e6, ttft / 1e6])
            out[self.ct_row] = vals[self.ct_metric, np.arange(len(self.ct_row))]
        return out
