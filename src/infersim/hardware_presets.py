"""The public path ``infersim.hardware_presets`` (the design reference names it): the code is in
:mod:`infersim.presets.hardware_presets`; this module only hands its names on."""
from infersim.presets.hardware_presets import *  # noqa: F401,F403
from infersim.presets.hardware_presets import __all__  # noqa: F401
