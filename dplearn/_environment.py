"""Where the lessons run: in JupyterLab, or as an app that Voilà serves.

Taught in: every lesson notebook (the figures and the exercise boxes ask it).
"""

from __future__ import annotations

import os

__all__ = ["in_app_mode"]


def in_app_mode():
    """True in a kernel that Voilà started (a lesson shown as an app, without code).

    Voilà sets ``VOILA_PREHEAT`` in the environment of every kernel it starts ("True"
    for a preheated one, "False" otherwise, standalone or as a Jupyter server
    extension), and ``SERVER_SOFTWARE`` to ``voila/<version>`` with the request; a
    JupyterLab kernel has neither.
    """
    return "VOILA_PREHEAT" in os.environ or os.environ.get("SERVER_SOFTWARE", "").startswith(
        "voila/"
    )
