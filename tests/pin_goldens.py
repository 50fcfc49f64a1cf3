"""Record the cost model's outputs for the named cases of ``golden_cases.py``.

    python tests/pin_goldens.py                # add cases that have no golden yet
    python tests/pin_goldens.py NAME [NAME…]   # refresh these goldens (say why in the commit)
    python tests/pin_goldens.py --all          # refresh every golden (a physics change: say which)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from golden_cases import CASES, build  # noqa: E402

PATH = Path(__file__).parent / "goldens" / "cost_goldens.json"


def record(name: str) -> dict:
    from infersim import simulate

    r = simulate(*build(name))
    return {"total_latency_ns": r.total_latency_ns, "breakdown_ns": r.breakdown_ns,
            "mem_per_pe_bytes": r.mem_per_pe_bytes, "mem_breakdown_bytes": r.mem_breakdown_bytes,
            "op_times_ns": r.op_times_ns, "fits": r.fits, "bound": r.bound}


def main(argv: list[str]) -> int:
    goldens = json.loads(PATH.read_text()) if PATH.exists() else {}
    unknown = [n for n in argv if n != "--all" and n not in CASES]
    if unknown:
        print(f"unknown cases {unknown}; valid: {', '.join(CASES)}", file=sys.stderr)
        return 2
    names = list(CASES) if "--all" in argv else argv
    todo = [n for n in CASES if n not in goldens] + names
    for n in dict.fromkeys(todo):
        goldens[n] = record(n)
    goldens = {n: goldens[n] for n in CASES if n in goldens}
    PATH.write_text(json.dumps(goldens, indent=1, sort_keys=True) + "\n")
    print(f"{len(dict.fromkeys(todo))} goldens written to {PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
