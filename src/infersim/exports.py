"""Reproducible exports: one JSON file carries everything a result depends on (the full model
and hardware specs, the workload or request, runtime, objective, depth and grid, the infersim
version) next to the answer it gave, and :func:`rerun` computes it again.

The UI's "Download result (JSON)" buttons write these files and ``infersim rerun FILE``
re-runs one. :func:`compute` is the one code path both use, so a re-run of an unchanged
infersim gives the exported answer line for line.

Format (``format_version`` 1)::

    {"format": "infersim-export", "format_version": 1, "infersim_version": "0.1.0",
     "kind": "simulate" | "explore" | "codesign" | "serve" | "codesign_sla",
     "model": {ModelSpec fields}, "hardware": {HardwareSpec fields}, "runtime": "cuda-graphs",
     ...inputs of the kind (below)..., "answer": [lines], "result": {summary}}

Inputs: simulate ``workload``, ``parallelism``; explore ``workload``, ``objective``; codesign
``workload``, ``objective``, ``depth``, ``grid``, ``design_point``; serve ``request``,
``ttft_ms``, ``tpot_ms``, ``objective``, ``batching``, ``chunk_tokens``, ``batch_cap``,
``disaggregated``; codesign_sla (co-design at a serving SLA, ``hardware`` is the base of the
grid) ``request``, ``ttft_ms``, ``tpot_ms`` (null = no limit; at least one), ``objective`` (one
of ``sla_codesign.SLA_OBJECTIVES``), ``depth``, ``grid``, ``batching``. Optional everywhere:
``max_candidates`` (codesign, codesign_sla).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, Callable

from infersim.errors import InferSimError, choice, require, short_repr
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import Parallelism
from infersim.specs.runtime import Runtime
from infersim.specs.workload import Workload
from infersim.version import __version__

FORMAT = "infersim-export"
FORMAT_VERSION = 1
KINDS = ("simulate", "explore", "codesign", "serve", "codesign_sla")
MAX_EXPORT_BYTES = 16 * 1024 * 1024
INPUT_KEYS = {
    "simulate": ("workload", "parallelism"),
    "explore": ("workload", "objective"),
    "codesign": ("workload", "objective", "depth", "grid", "design_point"),
    "serve": ("request", "ttft_ms", "tpot_ms", "objective", "batching", "chunk_tokens", "batch_cap",
              "disaggregated"),
    "codesign_sla": ("request", "ttft_ms", "tpot_ms", "objective", "depth", "grid", "batching"),
}


@dataclass(frozen=True)
class Run:
    """What a result depends on: the kind of computation, the specs and its inputs (JSON-able)."""

    kind: str
    model: ModelSpec
    hardware: HardwareSpec
    runtime: "str | Runtime"          # a profile name, or the fields of a runtime file
    inputs: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        choice("export kind", self.kind, KINDS)
        missing = [k for k in INPUT_KEYS[self.kind] if k not in self.inputs]
        require(not missing, f"{self.kind} export: missing input '{missing[0] if missing else ''}'")

    def workload(self) -> Workload:
        return _build(Workload, self.inputs["workload"], "workload")


@dataclass(frozen=True)
class Outcome:
    """A computed result: the result object, its answer lines and kind-specific extras."""

    result: Any
    answer: list[str]
    extras: dict = field(default_factory=dict)


# ----- building specs from plain dicts: every mistake one line ----------------------------------
def _build(cls, d, what: str):
    require(isinstance(d, dict), f"{what} must be a JSON object, got {type(d).__name__}")
    valid = {f.name for f in fields(cls)}
    unknown = sorted(set(d) - valid)
    require(not unknown, f"{what}: unknown field '{unknown[0] if unknown else ''}'; valid: {', '.join(sorted(valid))}")
    kw = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
    try:
        return cls(**kw)
    except InferSimError as exc:
        raise InferSimError(f"{what}: {exc}") from None
    except (TypeError, ValueError) as exc:    # a missing field or a value of the wrong type
        raise InferSimError(f"{what}: {' '.join(str(exc).split())}") from None


def runtime_json(rt: "str | Runtime"):
    """A runtime as an export holds it: the profile's name when it is that profile unchanged,
    else all its fields (a runtime file, an edited profile)."""
    from infersim.presets.runtime_presets import RUNTIMES

    if isinstance(rt, str):
        return rt
    return rt.name if rt.name in RUNTIMES and RUNTIMES[rt.name] == rt else rt.to_dict()


def runtime_label(rt: "str | Runtime") -> str:
    return rt if isinstance(rt, str) else rt.name


def model_from_dict(d) -> ModelSpec:
    return _build(ModelSpec, d, "model")


def hardware_from_dict(d) -> HardwareSpec:
    require(isinstance(d, dict), f"hardware must be a JSON object, got {type(d).__name__}")
    try:
        return HardwareSpec.from_dict(d)
    except InferSimError as exc:
        raise InferSimError(f"hardware: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise InferSimError(f"hardware: {' '.join(str(exc).split())}") from None


# ----- the answers (the same lines in the UI, the export and the re-run) -------------------------
def simulate_answer(model: ModelSpec, hw: HardwareSpec, r) -> list[str]:
    """The verdict; a config that does not fit gets no headline speed (it cannot run)."""
    from infersim.verdict import simulate_verdict

    if r.fits:
        return simulate_verdict(model, hw, r)
    wl = r.workload
    return [f"{r.model} {wl.mode} {wl.s_kv:,} tokens, batch {wl.batch} on {r.hardware}: "
            f"{r.par.describe()} ({r.pes_used} PEs) does NOT fit: it needs {r.mem_per_pe_bytes / 1e9:.1f} GB "
            f"per PE, {r.mem_capacity_bytes / 1e9:.1f} GB usable, so it cannot run",
            "memory: more TP or PP (or a smaller dtype) spreads weights and KV over more PEs"]


def _simulate(run: Run, progress) -> Outcome:
    from infersim.simulate import simulate

    par = _build(Parallelism, run.inputs["parallelism"], "parallelism")
    r = simulate(run.model, run.hardware, par, run.workload(), runtime=run.runtime)
    return Outcome(r, simulate_answer(run.model, run.hardware, r))


def _explore(run: Run, progress) -> Outcome:
    from infersim.search.auto_explore import auto_explore
    from infersim.search.autosuggest import autosuggest
    from infersim.verdict import explore_verdict, simulate_verdict

    wl = run.workload()
    res = auto_explore(run.model, run.hardware, wl, objective=run.inputs["objective"],
                       runtime=run.runtime, progress=progress)
    if res.n_fitting == 0:
        raise InferSimError(f"no parallelism of {run.model.name} fits {run.hardware.name} for this "
                            f"workload ({res.n_valid:,} valid configs tried)")
    sug = autosuggest(run.model, run.hardware, wl, runtime=run.runtime)
    answer = explore_verdict(res, sug) + simulate_verdict(run.model, run.hardware, res.best_result)[1:]
    return Outcome(res, answer, {"suggestion": sug})


def _codesign(run: Run, progress) -> Outcome:
    from infersim.codesign.answer import answer_lines
    from infersim.codesign.auto_hardware import joint_explore

    wl, inp = run.workload(), run.inputs
    res = joint_explore(run.model, s_kv=wl.s_kv, mode=wl.mode, batch=wl.batch, s_q=wl.s_q,
                        depth=inp["depth"], base_hw=run.hardware, objective=inp["objective"],
                        custom=inp["grid"] if inp["depth"] == "custom" else None,
                        runtime=run.runtime, design_point=inp["design_point"], progress=progress,
                        max_candidates=inp.get("max_candidates"))
    return Outcome(res, list(answer_lines(res.answer())))


def _serve(run: Run, progress) -> Outcome:
    from infersim.serving import Request, sla_search
    from infersim.serving.answer import answer_lines

    inp = run.inputs
    request = _build(Request, inp["request"], "request")
    r = sla_search(run.model, run.hardware, request, ttft_ms=inp["ttft_ms"], tpot_ms=inp["tpot_ms"],
                   objective=inp["objective"], runtime=run.runtime, batching=inp["batching"],
                   chunk_tokens=inp["chunk_tokens"], batch_cap=inp["batch_cap"],
                   disaggregated=inp["disaggregated"])
    return Outcome(r, answer_lines(r))


def _codesign_sla(run: Run, progress) -> Outcome:
    from infersim.codesign.sla import codesign_sla, sla_answer_lines
    from infersim.serving import Request

    inp = run.inputs
    request = _build(Request, inp["request"], "request")
    res = codesign_sla(run.model, request, ttft_ms=inp["ttft_ms"], tpot_ms=inp["tpot_ms"], depth=inp["depth"],
                       custom=inp["grid"] if inp["depth"] == "custom" else None, base_hw=run.hardware,
                       objective=inp["objective"], runtime=run.runtime, batching=inp["batching"],
                       progress=progress, max_candidates=inp.get("max_candidates"))
    return Outcome(res, list(sla_answer_lines(res.answer())))


_COMPUTE: dict[str, Callable[[Run, Any], Outcome]] = {
    "simulate": _simulate, "explore": _explore, "codesign": _codesign, "serve": _serve,
    "codesign_sla": _codesign_sla}


def compute(run: Run, progress: Callable[[int, int], None] | None = None) -> Outcome:
    """Run the computation ``run`` describes (``progress(done, total)`` for the sweeps)."""
    return _COMPUTE[run.kind](run, progress)


# ----- writing and reading export files ---------------------------------------------------------
def _summary(kind: str, out: Outcome) -> dict:
    r = out.result
    if kind in ("simulate", "serve"):
        return r.to_dict()
    if kind == "codesign_sla":
        return _sla_summary(r)
    if kind == "explore":
        sug = out.extras.get("suggestion")
        return {"n_enumerated": r.n_enumerated, "n_valid": r.n_valid, "n_fitting": r.n_fitting,
                "top": r.rows(20),
                "least_memory": sug.par.to_dict() if sug else None,
                "fewest_pes": sug.fewest_pes.to_dict() if sug else None}
    return {"n_hardware": r.n_hardware, "n_parallel_per_hw": r.n_parallel, "total_joint": r.total_joint,
            "n_kept_pairs": len(r.all_scores), "best": r.best.to_dict(),
            "pareto_usd": [s.to_dict() for s in r.pareto_usd_scores],
            "pareto_cost_score": [s.to_dict() for s in r.pareto_scores],
            "design_point": {**r.design_point.knobs(), **r.design_point.topology_overrides()},
            "sensitivity": [vars(s) for s in r.sensitivity],
            "what_it_takes": [vars(q) for q in r.requirements]}


def _sla_summary(r, top: int = 20) -> dict:
    """The best design's record (or the nearest miss), the top designs and the sensitivity."""
    best = r.best
    return {"n_hardware": len(r.designs), "n_meeting": r.n_meeting, "answer": r.answer(),
            "best": best.record() if best else None,
            "top": [d.record() for d in r.designs[:top]],
            "sensitivity": [vars(s) for s in r.sensitivity]}


def to_export(run: Run, out: Outcome) -> dict:
    """The export of ``run`` and its outcome as a JSON-able dict (inputs first, then the answer)."""
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "infersim_version": __version__,
            "kind": run.kind, "model": run.model.to_dict(), "hardware": run.hardware.to_dict(),
            "runtime": runtime_json(run.runtime), **run.inputs, "answer": out.answer,
            "result": _summary(run.kind, out)}


def dumps(export: dict) -> str:
    return json.dumps(export, indent=2, default=str, allow_nan=True)


def read_export(text: str | bytes, where: str = "export") -> tuple[Run, dict]:
    """(Run, the export dict) from an export file's text; one-line errors naming ``where``."""
    from infersim.loaders.files import decode_capped

    if isinstance(text, bytes):
        text = decode_capped(text, MAX_EXPORT_BYTES, where, "export file")
    try:
        d = json.loads(text)
    except RecursionError:
        raise InferSimError(f"{where}: nested too deeply") from None
    except ValueError as exc:
        raise InferSimError(f"{where}: not JSON: {' '.join(str(exc).split())[:120]}") from None
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise InferSimError(f"{where}: not an infersim export (no \"format\": \"{FORMAT}\"); export one "
                            "from the UI's Download result (JSON)")
    require(d.get("format_version") == FORMAT_VERSION,
            f"{where}: export format_version {d.get('format_version')!r}; this infersim reads {FORMAT_VERSION}")
    try:
        kind = d.get("kind")
        choice("export kind", kind, KINDS)
        runtime = d.get("runtime")
        require(isinstance(runtime, (str, dict)),
                f"runtime must be a profile name or a table of runtime fields, got {short_repr(runtime)}")
        if isinstance(runtime, dict):
            runtime = _build(Runtime, runtime, "runtime")
        run = Run(kind, model_from_dict(d.get("model")), hardware_from_dict(d.get("hardware")), runtime,
                  {k: d[k] for k in INPUT_KEYS[kind] + ("max_candidates",) if k in d})
    except InferSimError as exc:
        raise InferSimError(f"{where}: {exc}") from None
    return run, d


def _check_caps(run: Run, front_end: str, where: str) -> None:
    """An export re-runs under the caps of the front end that re-runs it: the UI's own controls
    stop at its default candidate caps, the CLI at the library's limits (checked by the sweeps)."""
    if front_end != "ui" or run.kind not in ("codesign", "codesign_sla"):
        return
    from infersim.codesign.grid import MAX_CANDIDATES, MAX_SLA_CANDIDATES

    cap = MAX_CANDIDATES if run.kind == "codesign" else MAX_SLA_CANDIDATES
    asked = run.inputs.get("max_candidates")
    if asked is not None and not (isinstance(asked, int) and not isinstance(asked, bool) and asked <= cap):
        raise InferSimError(f"{where}: the export asks for max_candidates={short_repr(asked)}; the UI runs at "
                            f"most {cap:,} candidates (re-run it with infersim rerun)")


def rerun(text: str | bytes, where: str = "export", front_end: str = "cli") -> tuple[Run, Outcome, dict]:
    """Read an export and compute it again: (run, new outcome, the export dict); ``front_end``
    ("cli" or "ui") picks the candidate caps it runs under."""
    choice("front_end", front_end, ("cli", "ui"))
    run, d = read_export(text, where)
    _check_caps(run, front_end, where)
    try:
        return run, compute(run), d
    except InferSimError as exc:
        raise InferSimError(f"{where}: {exc}") from None
