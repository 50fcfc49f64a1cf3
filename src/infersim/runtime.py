"""The public path ``infersim.runtime`` (the design reference names it): the spec is in
:mod:`infersim.specs.runtime`, the profiles in :mod:`infersim.presets.runtime_presets`; this module
only hands their names on."""
from infersim.presets.runtime_presets import *  # noqa: F401,F403
from infersim.presets.runtime_presets import __all__ as _presets_all
from infersim.specs.runtime import *  # noqa: F401,F403
from infersim.specs.runtime import __all__ as _spec_all

__all__ = list(_spec_all) + list(_presets_all)
