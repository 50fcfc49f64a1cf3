"""The public path ``infersim.runtime`` (the design reference names it): the code is in
:mod:`infersim.specs.runtime`; this module only hands its names on."""
from infersim.specs.runtime import *  # noqa: F401,F403
from infersim.specs.runtime import __all__  # noqa: F401
