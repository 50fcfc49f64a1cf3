"""The public path ``infersim.model_presets`` (the design reference names it): the code is in
:mod:`infersim.presets.model_presets`; this module only hands its names on."""
from infersim.presets.model_presets import *  # noqa: F401,F403
from infersim.presets.model_presets import __all__  # noqa: F401
