"""``python -m dplearn.figures --out DIR``: see ``dplearn.figures.export``."""

import sys

from dplearn.figures.export import main

sys.exit(main())
