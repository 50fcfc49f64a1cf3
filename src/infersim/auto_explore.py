"""The public path ``infersim.auto_explore`` (the design reference names it): the code is in
:mod:`infersim.search.auto_explore`; this module only hands its names on."""
from infersim.search.auto_explore import *  # noqa: F401,F403
from infersim.search.auto_explore import __all__  # noqa: F401
