"""``python -m infersim.cli``."""
import sys

from infersim.cli import main

sys.exit(main())
