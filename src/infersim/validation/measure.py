"""``infersim measure``: micro-benchmarks of the local accelerator, written as samples that
``infersim calibrate`` turns into a hardware file.

Two sweeps (``--quick``: fewer sizes, under a minute on a GPU):

* **GEMM**: ``C = A·B`` over M×N×K per dtype (bf16, fp16); rate = 2·M·N·K / time (TFLOPS);
* **HBM streaming**: a device-to-device copy of B bytes; rate = 2·B / time (GB/s: one read, one write).

Backends: ``torch`` (the optional ``[measure]`` extra; CUDA or ROCm when visible, CPU otherwise;
timed with device events after warm-up) and ``numpy`` (the CPU smoke mode, so CI exercises the
pipeline without PyTorch). Buffers are ordinary device allocations (never managed memory), and the
largest working set is capped at ``mem_fraction`` of the free device memory (default 0.25).

Not measured yet (the issue's remaining items): fp8 GEMMs, decode attention over (batch, context),
the per-kernel gap of a CUDA-graph replay, and collectives across several GPUs.

Samples (CSV, one per size): ``kind`` (gemm | stream), ``dtype``, ``m``, ``n``, ``k`` (GEMM),
``bytes`` (stream), ``time_ns`` (median of the timed repeats), ``rate`` and ``unit`` (TFLOPS or
GB/s), ``device``. :func:`hardware_from_samples` takes, per kind, the best rate over the sweep as a
fraction of the base spec's datasheet peak: ``eff_max_compute`` (bf16 / fp16 GEMM) and
``eff_max_memory`` (streaming), bounded to ``EFF_BOUNDS``.
"""
from __future__ import annotations

import csv
import datetime
import io
import json
import os
import statistics
import time

from infersim.errors import InferSimError, warn
from infersim.specs.efficiency import EFF_BOUNDS
from infersim.specs.hardware import HardwareSpec

FIELDS = ("kind", "dtype", "m", "n", "k", "bytes", "time_ns", "rate", "unit", "device")
GEMM_SIZES = {"quick": ((1024, 4096, 4096), (4096, 4096, 4096), (8192, 8192, 8192)),
              "full": tuple((m, n, n) for n in (4096, 8192) for m in (16, 128, 1024, 4096, 8192, 16384))}
STREAM_BYTES = {"quick": (1 << 26, 1 << 30), "full": (1 << 24, 1 << 26, 1 << 28, 1 << 30, 1 << 31)}
#: CPU smoke mode: sizes small enough for a CI runner.
SMOKE_GEMM = ((64, 128, 128), (256, 256, 256))
SMOKE_STREAM = (1 << 20, 1 << 23)


class _Numpy:
    name = "numpy (CPU smoke mode)"

    def __init__(self):
        import numpy as np
        self.np = np

    def free_bytes(self) -> int:
        return 1 << 30

    def gemm(self, m, n, k, dtype):
        a = self.np.ones((m, k), self.np.float32)
        b = self.np.ones((k, n), self.np.float32)
        return lambda: a @ b

    def copy(self, nbytes):
        src = self.np.ones(nbytes // 4, self.np.float32)
        dst = self.np.empty_like(src)
        return lambda: self.np.copyto(dst, src)

    def time_ns(self, fn, reps: int) -> float:
        fn()
        samples = []
        for _ in range(reps):
            t = time.perf_counter_ns()
            fn()
            samples.append(time.perf_counter_ns() - t)
        return float(statistics.median(samples))


class _Torch:
    def __init__(self):
        try:
            import torch
        except ImportError:
            raise InferSimError("infersim measure needs PyTorch: pip install 'infersim[measure]' "
                                "(or --backend numpy for the CPU smoke mode)") from None
        self.torch = torch
        self.dev = "cuda" if torch.cuda.is_available() else "cpu"
        self.name = torch.cuda.get_device_name(0) if self.dev == "cuda" else "cpu (torch)"

    def free_bytes(self) -> int:
        return int(self.torch.cuda.mem_get_info()[0]) if self.dev == "cuda" else 1 << 30

    def gemm(self, m, n, k, dtype):
        t = self.torch
        dt = {"bf16": t.bfloat16, "fp16": t.float16}[dtype] if self.dev == "cuda" else t.float32
        a, b = t.randn(m, k, device=self.dev, dtype=dt), t.randn(k, n, device=self.dev, dtype=dt)
        out = t.empty(m, n, device=self.dev, dtype=dt)
        return lambda: t.matmul(a, b, out=out)

    def copy(self, nbytes):
        t = self.torch
        src = t.empty(nbytes, dtype=t.uint8, device=self.dev)
        dst = t.empty_like(src)
        return lambda: dst.copy_(src)

    def time_ns(self, fn, reps: int) -> float:
        t = self.torch
        for _ in range(3):
            fn()
        if self.dev != "cuda":
            return _Numpy.time_ns(self, fn, reps)
        samples = []
        for _ in range(reps):
            start, end = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) * 1e6)
        return float(statistics.median(samples))


def measure(quick: bool = True, backend: str = "torch", mem_fraction: float = 0.25, reps: int = 10) -> list[dict]:
    """Run the sweeps (module docstring) and return the samples."""
    if backend not in ("torch", "numpy"):
        raise InferSimError(f"unknown backend {backend!r}; valid: torch, numpy")
    if not 0 < mem_fraction <= 0.9:
        raise InferSimError(f"mem_fraction must be in (0, 0.9], got {mem_fraction}")
    b = _Torch() if backend == "torch" else _Numpy()
    smoke = backend == "numpy" or getattr(b, "dev", "cpu") == "cpu"
    budget = mem_fraction * b.free_bytes()
    gemms = SMOKE_GEMM if smoke else GEMM_SIZES["quick" if quick else "full"]
    streams = SMOKE_STREAM if smoke else STREAM_BYTES["quick" if quick else "full"]
    out = []
    for dtype in ("bf16",) if smoke or quick else ("bf16", "fp16"):
        for m, n, k in gemms:
            if 2 * (m * k + k * n + m * n) > budget:
                continue
            t = b.time_ns(b.gemm(m, n, k, dtype), reps)
            out.append({"kind": "gemm", "dtype": dtype, "m": m, "n": n, "k": k, "bytes": "", "time_ns": t,
                        "rate": 2.0 * m * n * k / t / 1e3, "unit": "TFLOPS", "device": b.name})
    for nbytes in streams:
        if 2 * nbytes > budget:
            continue
        t = b.time_ns(b.copy(nbytes), reps)
        out.append({"kind": "stream", "dtype": "", "m": "", "n": "", "k": "", "bytes": nbytes, "time_ns": t,
                    "rate": 2.0 * nbytes / t, "unit": "GB/s", "device": b.name})
    if not out:
        raise InferSimError("no benchmark fits in the memory budget: raise --mem-fraction")
    return out


def write_samples(samples: list[dict], path: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(samples)


def is_samples(text: str) -> bool:
    """Whether a CSV's header is :data:`FIELDS` (a samples file rather than measurement rows)."""
    return text.lstrip("\ufeff").split("\n", 1)[0].strip().split(",")[:2] == ["kind", "dtype"]


def read_samples(text: str, where: str) -> list[dict]:
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    try:
        return [{**r, "rate": float(r["rate"])} for r in rows if r.get("kind") in ("gemm", "stream")]
    except (KeyError, ValueError):
        raise InferSimError(f"{where}: a samples file needs kind and a numeric rate on every row") from None


def hardware_from_samples(samples: list[dict], base: HardwareSpec, where: str) -> tuple[dict[str, float], list[str]]:
    """(eff_max_<kind> → measured maximum, notes): the best rate per kind / the base's peak."""
    peaks = {"compute": ("gemm", base.peak_tflops_f16), "memory": ("stream", base.bw_hbm_gbs)}
    out, notes = {}, []
    for kind, (sample_kind, peak) in peaks.items():
        rates = [s["rate"] for s in samples if s["kind"] == sample_kind]
        if not rates:
            notes.append(f"eff_max_{kind}: no {sample_kind} samples (kept at base)")
            continue
        lo, hi = EFF_BOUNDS[kind]
        eff = max(rates) / peak
        if not lo <= eff <= hi:
            notes.append(f"eff_max_{kind}: measured {eff:.3f} of the base's peak, outside the physical range "
                         f"[{lo}, {hi}]: clipped (is the base the part you measured?)")
            eff = min(max(eff, lo), hi)
        out[kind] = eff
    if not out:
        raise InferSimError(f"{where}: no gemm or stream samples")
    return out, notes


def hardware_toml(base: HardwareSpec, effs: dict[str, float], n: int, where: str, device: str) -> str:
    date = datetime.date.today().isoformat()
    src = f"calibrated from {n} rows of {where} on {date} (micro-benchmarks on {device}; base {base.name})"
    lines = [f"# written by infersim calibrate from infersim measure samples: {src}",
             f"name = {json.dumps(base.name + ' (measured)')}", f"base = {json.dumps(base.name)}",
             f"source = {json.dumps(src)}"]
    lines += [f"eff_max_{k} = {v:.6f}" for k, v in effs.items()]
    return "\n".join(lines) + "\n"


def calibrate_samples(path: str, hw: str | None, hw_out: str) -> list[str]:
    """The hardware file from a samples file; returns the answer lines."""
    from infersim.loaders.files import read_text_capped
    from infersim.presets.hardware_presets import HW_PRESETS, resolve_hardware

    where = os.path.basename(path)
    if hw is None:
        raise InferSimError(f"{where}: samples do not name the part: pass --hw PRESET (the part measured)")
    base = resolve_hardware(hw)
    if base.name not in HW_PRESETS:
        raise InferSimError(f"{where}: --hw must name a preset for micro-benchmark samples (the file keeps its base)")
    samples = read_samples(read_text_capped(path, 16 << 20, "samples file"), where)
    effs, notes = hardware_from_samples(samples, base, where)
    device = samples[0].get("device", "") if samples else ""
    with open(hw_out, "w", encoding="utf-8") as f:
        f.write(hardware_toml(base, effs, len(samples), where, device))
    for note in notes:
        warn(f"{where}: {note}")
    top = {"compute": base.compute_eff, "memory": base.memory_eff}
    return [f"Measured {base.name} from {len(samples)} samples of {where} ({device}): "
            + ", ".join(f"eff_max_{k} {max(e for _, e in top[k]):.3f} (preset) -> {v:.3f} (measured)"
                        for k, v in effs.items()),
            f"wrote {hw_out} (hardware): use it with --hw {hw_out}"]
