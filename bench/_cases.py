"""The benches' shared command line: ``--case NAME`` runs one case in this process; without it,
every case runs in its own process, so that each line's peak RSS is that case's own."""
from __future__ import annotations

import argparse
import subprocess
import sys
from typing import Callable, Sequence


def run_cases(script: str, cases: Sequence[str], run_case: Callable[[str], None]) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", choices=cases)
    args = ap.parse_args()
    if args.case:
        run_case(args.case)
        return
    for case in cases:
        subprocess.run([sys.executable, script, "--case", case], check=False)


def peak_rss_mb(children: bool = False) -> float:
    """Peak resident memory (MB) of this process, or of its finished children."""
    import resource

    who = resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF
    return resource.getrusage(who).ru_maxrss / 1024
