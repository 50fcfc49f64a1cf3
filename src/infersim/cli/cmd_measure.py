"""``infersim measure``: micro-benchmarks of the local accelerator (PyTorch, the ``[measure]`` extra)."""
from __future__ import annotations

from infersim.cli.common import console, finite_float, output_file


def add_parser(sub) -> None:
    p = sub.add_parser("measure", help="GEMM and HBM micro-benchmarks of the local GPU, as samples for "
                                       "infersim calibrate (docs/calibrate.md)")
    p.add_argument("--out", required=True, type=output_file, help="samples CSV to write")
    p.add_argument("--quick", action="store_true", help="fewer sizes (under a minute on a GPU)")
    p.add_argument("--backend", default="torch", help="torch (default) or numpy (the CPU smoke mode)")
    p.add_argument("--mem-fraction", type=finite_float, default=0.25,
                   help="largest working set as a fraction of free device memory (default 0.25)")
    p.set_defaults(run=run)


def run(args) -> int:
    from infersim.validation.measure import measure, write_samples

    samples = measure(quick=args.quick, backend=args.backend, mem_fraction=args.mem_fraction)
    write_samples(samples, args.out)
    best = {k: max((s["rate"] for s in samples if s["kind"] == k), default=float("nan")) for k in ("gemm", "stream")}
    console.print(f"Measured {samples[0]['device']}: best GEMM {best['gemm']:.3g} TFLOPS, best copy "
                  f"{best['stream']:.4g} GB/s over {len(samples)} samples; wrote {args.out} "
                  f"(next: infersim calibrate {args.out} --hw PRESET --out mystack.toml)", highlight=False)
    return 0
