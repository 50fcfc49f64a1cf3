"""The public path ``infersim.auto_hardware`` (the design reference names it): the code is in
:mod:`infersim.codesign.auto_hardware`; this module only hands its names on."""
from infersim.codesign.auto_hardware import *  # noqa: F401,F403
from infersim.codesign.auto_hardware import __all__  # noqa: F401
