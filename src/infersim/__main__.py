"""``python -m infersim``: the command-line interface."""
import sys

from infersim.cli import main

if __name__ == "__main__":
    sys.exit(main())
