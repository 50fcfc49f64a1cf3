"""infersim: analytical LLM inference simulator, parallelism explorer and hardware co-design."""
from .errors import InferSimError, InferSimWarning
from .hardware import HardwareSpec
from .model import ModelSpec
from .parallel import Parallelism
from .simulate import SimResult, simulate
from .workload import Workload

__all__ = ["ModelSpec", "HardwareSpec", "Parallelism", "Workload", "simulate", "SimResult",
           "InferSimError", "InferSimWarning"]
__version__ = "0.1.0"
