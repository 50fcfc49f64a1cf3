"""Command-line interface: ``infersim {presets,simulate,explore,codesign,serve,validate,ui}``
(``--json`` on each). One module per command (``cmd_*.py``), shared pieces in ``common.py``.

Bad input prints one line ``error: ...`` to stderr and exits with status 2, never a traceback;
legal but suspicious input prints one ``warning: ...`` line per warning and carries on.
"""
from __future__ import annotations

import argparse
import sys
import warnings

from ..errors import InferSimError, InferSimWarning
from . import cmd_codesign, cmd_explore, cmd_presets, cmd_serve, cmd_simulate, cmd_ui, cmd_validate
from .common import console, fmt_gb, fmt_ns, parse_grid  # noqa: F401  (public helpers)

COMMAND_MODULES = (cmd_presets, cmd_simulate, cmd_explore, cmd_codesign, cmd_serve, cmd_validate, cmd_ui)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="infersim", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    for mod in COMMAND_MODULES:
        mod.add_parser(sub)
    return ap


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"warning: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", InferSimWarning)
            warnings.showwarning = _show_warning
            return args.run(args)
    except InferSimError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130

