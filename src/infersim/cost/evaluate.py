"""Stage 2 of the cost model: latencies from the terms, the hardware knobs and the runtime.

One micro-batch's traversal of the pipeline (one step of one micro-batch through every stage):

    device = Σ_ops op_time(f/peak, m/bw)·mult + Σ collectives + exposed CP ring + kernels·kernel_gap
    A      = max(device, host)        host = kernels·host_launch unless graph-captured
    S      = the slowest stage (the first or the last, see ``pipeline.py``), same terms

    decode   latency = period = max(m·S, A) + host             (a sequence's next token)
    prefill  latency = A + (m − 1)·S + host                 (the last micro-batch is done)
             period  = (m·S if pp > 1 else A) + host        (a new batch enters every m·S)
    host     = (1 − overlap) · (step_fixed + seq · sequences per replica)
               (the per-step host work not overlapped with the device; the overlapped share shows
               in A only where it is longer than the device time, see ``host_exposed``)
    throughput = batch · new tokens / period

The breakdown splits A into compute, HBM, each collective, the exposed ring, kernel gaps and the
exposed host launch time; ``pp_bubble`` is the rest of the latency beyond A and the host work
(``step_fixed`` and ``seq_host``).

Factorised for sweeps: operator times depend only on (peak FLOPs, HBM bandwidth) and collective
times only on the three link bandwidths, so for H candidates each is computed once per distinct
pair or triple (a balanced co-design grid of 64 candidates has 4 and 8) and gathered.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from infersim.cost.collectives import LinkTerms, link_time
from infersim.cost.runs import chain_sum, group_sums, row_sums
from infersim.cost.terms import BOUND_GROUPS, COMM_COMPONENTS, COMPONENTS, KINDS, Terms
from infersim.errors import InferSimError
from infersim.presets.runtime_presets import get_runtime
from infersim.specs.hardware import KNOBS, HardwareSpec
from infersim.specs.runtime import Runtime


def knob_values(hw: HardwareSpec, knobs: dict | None = None) -> dict:
    """The six knobs of ``hw``, overridden by ``knobs`` (scalars or arrays over candidates);
    an unknown name or a value that is not a finite number > 0 is rejected (one line)."""
    vals = hw.knobs()
    if knobs:
        unknown = sorted(set(knobs) - set(KNOBS))
        if unknown:
            raise InferSimError(f"unknown hardware knobs {unknown}; valid: {', '.join(KNOBS)}")
        for k, v in knobs.items():
            try:
                a = np.asarray(v, dtype=float)
            except (TypeError, ValueError):
                raise InferSimError(f"knob {k} must be a number or an array of numbers, got {v!r}") from None
            bad = ~(np.isfinite(a) & (a > 0))
            if np.any(bad):
                raise InferSimError(f"knob {k} must be a finite number > 0, got {float(a[bad].ravel()[0])!r}")
        vals.update(knobs)
    return vals


def _unique_rows(*cols) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of the stacked columns and, per row, the index of its distinct row."""
    rows = np.column_stack(cols)
    if len(rows) == 1:
        return rows, np.zeros(1, dtype=np.int64)
    uniq, inv = np.unique(rows, axis=0, return_inverse=True)
    return uniq, inv.ravel()


def op_time(tc, tm, floor, overlap: float, ramp=0.0):
    """One operator's device time from its compute time ``tc`` and memory time ``tm``: the
    longer phase plus the part of the shorter one the kernel does not hide under it, at least
    the kernel floor (the least time any of its kernels takes), plus the GEMM kernels' ramp
    (``ramp`` = GEMM kernels · ``HardwareSpec.gemm_ramp_ns``: pipeline fill and drain, which no
    size amortises away):

        t = max(max(tc, tm) + (1 − overlap) · min(tc, tm), floor) + ramp

    ``overlap`` = 1 is the ideal roofline. Real GEMM and attention kernels overlap loads and math
    only in their steady state (the prologue's first loads and the epilogue's last math and
    stores are exposed), so near the ridge point, where both phases are long, a kernel is slower
    than the larger of the two (``HardwareSpec.ridge_overlap``, fitted per GPU family)."""
    return np.maximum(np.maximum(tc, tm) + (1.0 - overlap) * np.minimum(tc, tm), floor) + ramp


KLASSES = ("gemm", "attn", "elementwise", "moe")


def kernel_quality(klass: str, rt: Runtime) -> tuple[float, float]:
    """(compute, memory) factors of the runtime's kernel quality for an operator class: GEMMs
    reach ``gemm_efficiency`` of the part's GEMM maxima, attention kernels ``attn_efficiency`` of
    its attention maxima (both phases), the routed experts' grouped GEMM ("moe") also
    ``moe_efficiency`` (both phases), elementwise kernels are the part's own."""
    if klass == "gemm":
        return rt.gemm_efficiency, 1.0
    if klass == "attn":
        return rt.attn_efficiency, rt.attn_efficiency
    if klass == "moe":
        return rt.gemm_efficiency * rt.moe_efficiency, rt.moe_efficiency
    return 1.0, 1.0


def phase_times(op, peak_per_ns, bw, rt: Runtime):
    """(compute time, memory time) of an operator under the runtime's kernel quality."""
    qc, qm = kernel_quality(op.klass, rt)
    return op.f / (peak_per_ns * qc), op.m / (bw * qm)


#: Elements of one (candidates, operators or collectives, configs) temporary: a larger evaluation
#: is priced in tiles of candidates × configs, so that stacking the operators keeps its
#: temporaries in cache and never multiplies a sweep's memory by their count.
TILE_ELEMS = 1 << 17


@lru_cache(maxsize=256)
def _quality(klasses: tuple[str, ...], rt: Runtime) -> tuple[np.ndarray, np.ndarray]:
    """(compute, memory) kernel-quality columns, (ops, 1) each, of operators of ``klasses``
    (cached: read-only)."""
    q = np.array([kernel_quality(k, rt) for k in klasses], dtype=float).reshape(len(klasses), 2)
    q.setflags(write=False)
    return q[:, :1], q[:, 1:]


def _tiled(U: int, N: int, depth: int, price):
    """``price(candidate slice, config slice)`` over tiles whose (rows, depth, cols) temporaries
    stay under TILE_ELEMS, assembled into (U, N) arrays (a dict of them, nested as ``price``
    returns them; scalar entries stay scalars)."""
    cols = max(1, min(N, TILE_ELEMS // max(depth, 1)))
    rows = max(1, TILE_ELEMS // (max(depth, 1) * cols))
    tiles = [(slice(u, u + rows), slice(n, n + cols)) for u in range(0, U, rows) for n in range(0, max(N, 1), cols)]
    if len(tiles) == 1:
        return price(*tiles[0])
    out = None
    for us, ns in tiles:
        part = price(us, ns)
        out = _place(out, part, us, ns, (U, N))
    return out


def _place(out, part, us, ns, shape):
    """Writes one tile's ``part`` into ``out`` (allocated on the first tile)."""
    if isinstance(part, dict):
        out = {} if out is None else out
        for k, v in part.items():
            out[k] = _place(out.get(k), v, us, ns, shape)
        return out
    if not np.ndim(part):
        return part
    out = np.empty(shape) if out is None else out
    out[us, ns] = part
    return out


def _priced(f, m, peak_per_ns, bw, qc, qm, floor, mult, ov: float, breakdown: bool, ramp=0.0) -> tuple:
    """Each operator's device time ``t`` = :func:`op_time` of its compute time
    ``f / (peak · q_c)`` and memory time ``m / (bw · q_m)`` (``q``: the runtime's kernel quality)
    and ``w = t · mult``; with ``breakdown`` also ``w``'s split into the compute-dominated roofline
    time, the HBM-dominated one and the per-kernel excess (floor and GEMM ramp; else three None).
    Arrays broadcast as given: (U, ops, N) for a sweep, (ops, 1) for one config."""
    tc, tm = f / (peak_per_ns * qc), m / (bw * qm)
    t = op_time(tc, tm, floor, ov, ramp)
    if not breakdown:
        return t, t * mult, None, None, None
    roof = op_time(tc, tm, 0.0, ov)
    c_dom = tc >= tm
    return t, t * mult, np.where(c_dom, roof, 0.0) * mult, np.where(c_dom, 0.0, roof) * mult, (t - roof) * mult


def _op_times(terms: Terms, peak_per_ns: np.ndarray, bw: np.ndarray, rt: Runtime,
              breakdown: bool) -> dict:
    """Per kind, Σ op_time·mult over the operators, for U (peak, bw) rows: (U, N) arrays, all
    operators in one broadcast over (U, ops, N) (:func:`_priced`). The runtime's kernel quality
    scales the peak GEMMs (``gemm_efficiency``) and the whole attention kernel
    (``attn_efficiency``); the floor is the op's launches (kernels times the runtime's launch
    multiplier) at the hardware's kernel latency. With ``breakdown`` also the compute- and
    HBM-dominated sums, the kernel-floor excess and each operator's time."""
    tab = terms.table
    qc, qm = _quality(tab.klasses, rt)
    floor = tab.kernels * (terms.hw.kernel_latency_ns * rt.launch_multiplier)
    ramp = tab.ramp_ns(terms.hw)
    names, slices = tab.kind_runs

    def price(us, ns):
        t, w, comp, hbm, flo = _priced(tab.f[:, ns], tab.m[:, ns], peak_per_ns[us, :, None], bw[us, :, None],
                                       qc, qm, floor, tab.mult, terms.hw.ridge_overlap, breakdown, ramp)
        out: dict = {"attn": t[:, terms.attn_index], "kinds": dict(zip(names, group_sums(w, slices, axis=1))),
                     "ops": {}, "compute": 0.0, "hbm": 0.0, "floor": 0.0}
        if breakdown:
            every = (slice(None),)
            out["compute"], = group_sums(comp, every, axis=1)
            out["hbm"], = group_sums(hbm, every, axis=1)
            out["floor"], = group_sums(flo, every, axis=1)
            out["ops"] = {n: w[:, i] for i, n in enumerate(tab.names)}
        return out
    return _tiled(len(peak_per_ns), len(terms), len(tab), price)


def _links_of(hw: HardwareSpec, links: np.ndarray) -> LinkTerms:
    """The link terms of U rows of (intra, inter, inter-SiP) bandwidths on ``hw``'s links."""
    return LinkTerms(1.0 / (links * np.asarray(hw.link_effs())), np.asarray(hw.link_alpha_ns(), dtype=float), True)


@lru_cache(maxsize=256)
def _link_terms(hw: HardwareSpec, bw: tuple) -> LinkTerms:
    """:func:`_links_of` one bandwidth row (cached: one config's evaluations on its own
    hardware share it; read-only)."""
    lt = _links_of(hw, np.array([bw], dtype=float))
    lt.inv.setflags(write=False)
    lt.alpha.setflags(write=False)
    return lt


def _comm_times(terms: Terms, links, breakdown: bool, floats: bool = False) -> dict:
    """Per kind (and with ``breakdown`` per component) collective time, and the ring step time,
    for U link-bandwidth rows (a (U, 3) array): (U, N) arrays, each block of collectives in one
    broadcast (``floats``: one config on one link row, ``links`` a 3-tuple, the sums as Python
    floats, the same bits)."""
    lt = _link_terms(terms.hw, links) if floats else _links_of(terms.hw, links)
    if not floats:
        ring = terms.ring_step.time_on(lt)
    else:               # no ring (cp = 1): its exposed time is 0 · max(0, step − …) = 0 at any step
        ring = float(terms.ring_step.time_on(lt)[0, 0]) if terms.ring_mult[0] else 0.0
    out: dict = {"kinds": {}, "components": {}, "ring_step": ring}
    for blk in terms.comms.blocks:
        def price(us, ns, blk=blk):
            if floats:          # one config, one link row: the (1, R, 1) times as floats
                t = link_time(blk.c, blk.k, lt).ravel().tolist()
            else:
                t = blk.row_times(ns, LinkTerms(lt.inv[us], lt.alpha, True))
            (names, slices), part = blk.kind_runs, {}
            part["kinds"] = dict(zip(names, row_sums(t, slices)))
            if breakdown:
                (names, slices), order = blk.component_runs
                part["components"] = dict(zip(names, row_sums([t[i] for i in order], slices)))
            return part
        part = price(slice(None), slice(None)) if floats else _tiled(len(links), len(terms), blk.depth, price)
        for key, sums in part.items():
            for name, v in sums.items():
                out[key][name] = out[key][name] + v if name in out[key] else v
    return out


def collective_calls_ns(terms: Terms, kind: str, rt: Runtime):
    """The collective library's own latency per call, beyond the links' hops: ``collective_ns``
    for a collective inside a node (a custom all-reduce's barrier, or NCCL's kernel and protocol
    start), ``net_collective_ns`` for one across nodes (NCCL's network proxy)."""
    local, across = terms.coll_calls.get(kind, (0.0, 0.0))
    return local * rt.collective_ns + across * rt.net_collective_ns


def step_host_ns(rt: Runtime, seqs):
    """Host work per step: ``step_fixed + seq · sequences`` (the runtime's scheduling, input
    preparation and sampling, once per step and once per sequence in it)."""
    return rt.step_fixed_ns + rt.seq_ns * seqs


def host_exposed(device, launch_host, work, overlap: float):
    """(traversal A, host work added after it): the share ``overlap`` of the per-step host work is
    done while the device runs (an asynchronous scheduler prepares step n+1 during step n), so it
    shows only where the host is the slower of the two; the rest is synchronous:

        A = max(device, launches · host_launch + overlap · work),   after = (1 − overlap) · work"""
    return np.maximum(device, launch_host + overlap * work), (1.0 - overlap) * work


def _pipeline(terms: Terms, kind_t: dict, rt: Runtime) -> dict:
    """Traversal A, slowest stage S, latency and period from per-kind device times (see module)."""
    device = chain_sum(kind_t.values())
    host_all = host_stage = 0.0
    host_ns = rt.host_ns_per_launch()
    if host_ns:
        host_all = chain_sum(terms.kernels[k] for k in KINDS) * host_ns
    A, fixed = host_exposed(device, host_all, step_host_ns(rt, terms.seqs), rt.host_overlap)
    out = {"device": device, "A": A, "bubble": 0.0}
    if not (terms.pp > 1 if isinstance(terms.pp, float) else np.any(terms.pp > 1)):
        out["latency"] = out["period"] = A + fixed
        return out
    stages = []
    for share in terms.stages:
        stages.append(chain_sum(share[k] * t for k, t in kind_t.items()))
        if host_ns:
            host_stage = np.maximum(host_stage, chain_sum(share[k] * terms.kernels[k] for k in KINDS)
                                    * host_ns)
    S = np.maximum(np.maximum.reduce(stages), host_stage)
    m, multi = terms.m, terms.pp > 1
    if terms.prefill:
        out["bubble"] = (m - 1.0) * S
        out["period"] = np.where(multi, m * S, A) + fixed
    else:
        out["bubble"] = np.maximum(m * S - A, 0.0)
    out["latency"] = A + out["bubble"] + fixed
    if not terms.prefill:
        out["period"] = out["latency"]
    return out


def exposed_ring(mult, step_ns, attn_ns, cp, hide):
    """The CP ring's exposed time: ``mult`` = (cp − 1)·layers steps, each the part of its transfer
    ``step_ns`` that the block attention (the attention op's time ``attn_ns`` over cp blocks, where
    ``hide`` is 1) does not hide."""
    return mult * np.maximum(0.0, step_ns - hide * attn_ns / cp)


def evaluate(terms: Terms, knobs: dict | None = None, runtime=None, breakdown: bool = True) -> dict:
    """Stage 2: latency and period (ns) of every config for the given knob values and runtime.

    Returns ``total_ns`` (latency), ``period_ns`` (time per batch in steady state), ``fits`` and,
    with ``breakdown``, one array per component in :data:`COMPONENTS` (they sum to ``total_ns``)
    and ``op_times_ns`` (each operator's roofline time). Knob arrays of shape ``(H, 1)`` give
    ``(H, N)`` results; scalar knobs give ``(N,)``."""
    hw, rt = terms.hw, get_runtime(runtime)
    k = knob_values(hw, knobs)
    arrays = [k[x] for x in KNOBS if not isinstance(k[x], float)]     # hw.knobs() gives floats
    batched = any(np.ndim(a) > 0 for a in arrays)
    if not batched and len(terms) == 1:
        one = lambda x: np.array([x], dtype=float).ravel()  # noqa: E731
        return {n: ({a: one(b) for a, b in v.items()} if isinstance(v, dict) else
                    np.array([v]) if n == "fits" else one(v))
                for n, v in _evaluate_one(terms, k, rt, breakdown).items()}
    H = max([int(np.size(a)) for a in arrays] + [1] * (len(arrays) < len(KNOBS)))
    vec = lambda x: np.broadcast_to(np.ravel(np.asarray(k[x], dtype=float)), (H,))  # noqa: E731
    if batched:
        roof, ia = _unique_rows(vec("peak_tflops_f16"), vec("bw_hbm_gbs"))
        links, ib = _unique_rows(vec("bw_intra_gbs"), vec("bw_inter_gbs"), vec("bw_intersip_gbs"))
    else:                                # one candidate: its single row (what _unique_rows gives)
        roof = np.array([[k["peak_tflops_f16"], k["bw_hbm_gbs"]]], dtype=float)
        links = np.array([[k["bw_intra_gbs"], k["bw_inter_gbs"], k["bw_intersip_gbs"]]], dtype=float)
        ia = ib = np.zeros(1, dtype=np.int64)
    ops = _op_times(terms, roof[:, :1] * 1e3, roof[:, 1:2], rt, breakdown)
    com = _comm_times(terms, links, breakdown)
    ops = {"attn": ops["attn"][ia], "kinds": {n: v[ia] for n, v in ops["kinds"].items()},
           "ops": {n: v[ia] for n, v in ops["ops"].items()},
           **{c: ops[c][ia] if np.ndim(ops[c]) else ops[c] for c in ("compute", "hbm", "floor")}}
    com = {"ring_step": com["ring_step"][ib], "kinds": {n: v[ib] for n, v in com["kinds"].items()},
           "components": {n: v[ib] for n, v in com["components"].items()}}
    fits = terms.fits(vec("pe_hbm_gb")[:, None] if batched else np.array([[float(k["pe_hbm_gb"])]]), rt)
    out = _assemble(terms, ops, com, rt, breakdown)
    out["fits"] = fits
    for name in ("total_ns", "period_ns") + (COMPONENTS if breakdown else ()):
        out[name] = out[name] + np.zeros((H, len(terms)))    # every entry an (H, N) array of its own
    if not batched:
        out = {n: ({a: b[0] for a, b in v.items()} if isinstance(v, dict) else v[0])
               for n, v in out.items()}
    return out


def _assemble(terms, ops: dict, com: dict, rt: Runtime, breakdown: bool) -> dict:
    """Latency, period and (with ``breakdown``) the components from the operators' and the
    collectives' times per kind (:func:`_op_times`, :func:`_comm_times`, gathered per candidate)
    and the configs' launch and host terms (``terms``: :class:`Terms`, or one config's
    :class:`_One`): the formulas of the module docstring, on arrays or on floats alike."""
    ring = exposed_ring(terms.ring_mult, com["ring_step"], ops["attn"], terms.cp, terms.ring_hide)
    gap = rt.kernel_gap_ns * rt.launch_multiplier
    kind_t = {}
    for kind in KINDS:
        t = terms.kernels[kind] * gap + collective_calls_ns(terms, kind, rt)
        if kind in ops["kinds"]:
            t = t + ops["kinds"][kind]
        if kind in com["kinds"]:
            t = t + com["kinds"][kind]
        kind_t[kind] = t
    kind_t["all"] = kind_t["all"] + ring
    pipe = _pipeline(terms, kind_t, rt)
    out = {"total_ns": pipe["latency"], "period_ns": pipe["period"]}
    if breakdown:
        gaps = chain_sum(terms.kernels[kd] for kd in KINDS) * gap
        out.update(compute=ops["compute"], hbm=ops["hbm"], kernel_floor=ops["floor"],
                   cp_ring=ring, kernel_gaps=gaps, host_launch=pipe["A"] - pipe["device"],
                   step_fixed=(1.0 - rt.host_overlap) * rt.step_fixed_ns,
                   seq_host=(1.0 - rt.host_overlap) * rt.seq_ns * terms.seqs, pp_bubble=pipe["bubble"])
        for name in COMM_COMPONENTS:
            out[name] = com["components"].get(name, 0.0)
        out["collective_calls"] = chain_sum(collective_calls_ns(terms, kd, rt) for kd in KINDS)
        out["op_times_ns"] = ops["ops"]
    return out


class _One:
    """One config's launch and host terms as Python floats (what :func:`_assemble` reads)."""

    __slots__ = ("ring_mult", "cp", "ring_hide", "kernels", "coll_calls", "seqs", "pp", "m",
                 "prefill", "stages")

    def __init__(self, terms: Terms):
        f = lambda a: a.item() if isinstance(a, np.ndarray) else float(a)  # noqa: E731
        self.ring_mult, self.cp, self.ring_hide = f(terms.ring_mult), f(terms.cp), f(terms.ring_hide)
        self.seqs, self.pp, self.m, self.prefill = f(terms.seqs), f(terms.pp), f(terms.m), terms.prefill
        self.kernels = {kd: f(v) for kd, v in terms.kernels.items()}
        self.coll_calls = {kd: (f(a), f(b)) for kd, (a, b) in terms.coll_calls.items()}
        self.stages = [{kd: f(v) for kd, v in st.items()} for st in terms.stages] if self.pp > 1 else []


def evaluate_one(terms: Terms, runtime=None, breakdown: bool = True) -> dict:
    """:func:`evaluate` of one config (``terms`` of length one) on its own hardware, as Python
    floats (``fits``: a bool): what ``simulate()`` reads."""
    return _evaluate_one(terms, terms.hw.knobs(), get_runtime(runtime), breakdown)


def _evaluate_one(terms: Terms, k: dict, rt: Runtime, breakdown: bool) -> dict:
    """:func:`evaluate` of one config on one candidate (a ``simulate()`` call): the operators and
    each block of collectives priced in one broadcast as for many configs, the sums and the
    pipeline on Python floats (the same IEEE operations in the same order: the same bits)."""
    tab, hw = terms.table, terms.hw
    qc, qm = _quality(tab.klasses, rt)
    t, w, comp, hbm, flo = _priced(tab.f, tab.m, np.float64(k["peak_tflops_f16"] * 1e3), np.float64(k["bw_hbm_gbs"]),
                                   qc, qm, tab.kernels * (hw.kernel_latency_ns * rt.launch_multiplier), tab.mult,
                                   hw.ridge_overlap, breakdown, tab.ramp_ns(hw))
    w = w.ravel().tolist()
    names, slices = tab.kind_runs
    ops: dict = {"attn": float(t[terms.attn_index, 0]), "kinds": dict(zip(names, row_sums(w, slices))),
                 "ops": {}, "compute": 0.0, "hbm": 0.0, "floor": 0.0}
    if breakdown:
        every = (slice(None),)
        for name, part in (("compute", comp), ("hbm", hbm), ("floor", flo)):
            ops[name], = row_sums(part.ravel().tolist(), every)
        ops["ops"] = dict(zip(tab.names, w))
    links = (float(k["bw_intra_gbs"]), float(k["bw_inter_gbs"]), float(k["bw_intersip_gbs"]))   # 0-d knobs too
    com = _comm_times(terms, links, breakdown, floats=True)
    out = {n: float(v) if n != "op_times_ns" else v for n, v in _assemble(_One(terms), ops, com, rt, breakdown).items()}
    out["fits"] = bool(terms.fits(float(k["pe_hbm_gb"]), rt)[0])
    return out


def bound_of(result: dict) -> np.ndarray:
    """'compute', 'memory', 'comm' or 'overhead': which share of the step dominates each config
    (overhead = kernel gaps + exposed host launches + the fixed per-step cost); one name for
    :func:`evaluate_one`'s floats."""
    shares = [chain_sum(result[c] for c in comps) for comps in BOUND_GROUPS.values()]
    if all(type(x) is float for x in shares):          # one config's floats: the first largest
        return _BOUND_NAMES[max(range(len(shares)), key=shares.__getitem__)]
    return _BOUND_NAMES[np.argmax(np.stack(np.broadcast_arrays(*shares)), axis=0)]


_BOUND_NAMES = np.array(list(BOUND_GROUPS))
