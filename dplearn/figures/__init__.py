"""The lessons' figures: one module per lesson topic, on a small framework.

Framework: ``explorers`` (figure objects whose artists are built once and changed in
place), ``controls`` (what each slider offers), ``widgets`` (``explore``: sliders, numbers
and the live figure) and ``export`` (``python -m dplearn.figures``). Lesson figures, each
registered under its LESSONS.md id: ``plrv`` (PLRV-*), ``mechanisms`` (MECH-*),
``noise`` (NOISE-*). Each figure object draws on the numerical core (``dplearn.privacy_loss``,
``dplearn.calibration``, ...), which never plots.

Taught in: every lesson notebook.
"""

from dplearn.figures import composition, mechanisms, noise, plrv
from dplearn.figures.widgets import explore

__all__ = ["composition", "explore", "mechanisms", "noise", "plrv"]
