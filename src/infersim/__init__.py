"""infersim: analytical LLM inference simulator, parallelism explorer and hardware co-design.

The package is layered; each layer may import only the ones below it (tests/test_layout.py
checks every module):

    errors, version    the one error type, the version
    specs/             frozen specs: model, hardware, parallelism, workload, runtime
    loaders/           config.json and hardware files -> specs
    presets/           the shipped models and hardware
    cost/              the one vectorised step model, collectives
    report/            formatting, frames, plots (pure presentation)
    simulate           the scalar front door
    search/            the parallelism space, auto_explore, autosuggest, objectives
    serving/           one deployment, the SLA search
    codesign/          the hardware sweep, sensitivity, economics, the SLA co-design
    validation/        predictions against published measurements
    verdict, exports   answers in words, reproducible exports
    (this package)     the public names below; infersim.auto_explore, .autosuggest,
                       .auto_hardware, .model_presets, .hardware_presets, .runtime re-export
    cli/, ui/          the front ends
"""
from infersim.errors import InferSimError, InferSimWarning
from infersim.simulate import SimResult, simulate
from infersim.specs.hardware import HardwareSpec
from infersim.specs.model import ModelSpec
from infersim.specs.parallel import Parallelism
from infersim.presets.runtime_presets import RUNTIMES
from infersim.specs.runtime import Runtime
from infersim.specs.workload import Workload
from infersim.version import __version__

# The public modules named like their functions load before the functions are bound, so that
# ``from infersim import autosuggest`` is the function whatever was imported first (importing a
# submodule binds its name in the package only when it loads).
import infersim.auto_explore  # noqa: E402,F401
import infersim.autosuggest  # noqa: E402,F401
from infersim.search.auto_explore import auto_explore  # noqa: E402
from infersim.search.autosuggest import autosuggest  # noqa: E402

#: Loaded on first use (PEP 562), so that ``import infersim`` stays as quick as the simulator needs.
_LAZY = {"joint_explore": "infersim.codesign.auto_hardware", "Request": "infersim.serving",
         "serve": "infersim.serving", "sla_search": "infersim.serving",
         "model_from_hf_config": "infersim.loaders.hf_model", "Traffic": "infersim.serving",
         "simulate_traffic": "infersim.serving", "capacity_search": "infersim.serving",
         "max_rate": "infersim.serving"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'infersim' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["ModelSpec", "HardwareSpec", "Parallelism", "Workload", "Runtime", "RUNTIMES", "simulate",
           "SimResult", "auto_explore", "autosuggest", "joint_explore", "Request", "serve", "sla_search",
           "Traffic", "simulate_traffic", "capacity_search", "max_rate", "model_from_hf_config", "InferSimError", "InferSimWarning", "__version__"]
