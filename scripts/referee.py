#!/usr/bin/env python3
"""referee.py: pair engines (or people) at a meeple game, keep the results.

The entry point; the code is the `referee` package beside this file (its
__init__.py lists the modules). Python 3 standard library only (Dask for
--cluster only).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from referee.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
