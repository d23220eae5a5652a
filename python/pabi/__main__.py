"""``python -m pabi`` and the ``pabi`` console script; the command lives in :mod:`pabi.cli`."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
