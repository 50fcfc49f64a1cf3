"""``python -m infersim.cli``."""
import sys

from . import main

sys.exit(main())
