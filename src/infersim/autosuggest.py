"""The public path ``infersim.autosuggest`` (the design reference names it): the code is in
:mod:`infersim.search.autosuggest`; this module only hands its names on."""
from infersim.search.autosuggest import *  # noqa: F401,F403
from infersim.search.autosuggest import __all__  # noqa: F401
