"""The fitted values: one generated data file, ``calibration.toml``, written by
``infersim validate --refit --write-calibration`` (docs/validation.md) and read by the presets.

Keys are ``<kind>.<group>.<parameter>``: ``hardware.<family>.<p>`` (multipliers and physics
parameters of a GPU family's presets) and ``runtime.<profile>.<field>`` (a runtime profile's
fitted fields). Every value has a physical range (:data:`infersim.validation.fit.PARAMS`); the
presets apply them, the files that users write are never calibrated behind their back.
"""
from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources

_FILE = "calibration.toml"


@lru_cache(maxsize=1)
def calibration() -> dict[str, float]:
    """Flat ``{"hardware.hopper.memory": 1.03, "runtime.vllm.seq_ns": 4100.0, ...}``."""
    text = (resources.files("infersim") / "presets" / _FILE).read_text(encoding="utf-8")
    out: dict[str, float] = {}
    for kind, groups in tomllib.loads(text).items():
        for group, values in groups.items():
            out.update({f"{kind}.{group}.{k}": float(v) for k, v in values.items()})
    return out


def group(kind: str, name: str) -> dict[str, float]:
    """The fitted values of one family or profile (``group("runtime", "vllm")``)."""
    prefix = f"{kind}.{name}."
    return {k[len(prefix):]: v for k, v in calibration().items() if k.startswith(prefix)}


def render(params: dict[str, float], header: str) -> str:
    """The TOML text of flat ``params`` (the inverse of :func:`calibration`)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for key in sorted(params):
        kind, rest = key.split(".", 1)
        name, field = rest.rsplit(".", 1)       # a profile's name may hold a dot (sglang-0.4)
        groups.setdefault((kind, name), []).append(f"{field} = {params[key]:.6g}")
    lines = [f"# {line}" for line in header.splitlines()]
    for (kind, name), items in groups.items():
        lines += ["", f'[{kind}."{name}"]', *items]
    return "\n".join(lines) + "\n"
