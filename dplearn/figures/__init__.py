"""The lessons' figures: one module per lesson topic, on a small framework.

Framework: ``explorers`` (figure objects whose artists are built once and changed in
place), ``controls`` (what each slider offers), ``widgets`` (``explore``: sliders, numbers
and the live figure), ``export`` (``python -m dplearn.figures``), ``text`` (text that
moves with a slider, drawn as cached glyphs), ``grids`` (the probability positions curves
are drawn at) and ``style`` (colours shared by the lessons); ``calculators`` (number boxes
for exercises no slider lands on) sits beside them. Lesson figures, each registered under
its id in docs/figures.md (the figure catalogue), in course order: ``intro`` (INTRO-*),
``plrv`` (PLRV-1 to PLRV-3, PLRV-ODDS, PLRV-10) and ``delta`` (PLRV-4 to PLRV-9,
PLRV-PROOF), ``mechanisms`` (MECH-1 to MECH-3) and ``gaussian`` (MECH-4, MECH-5), ``noise``
(NOISE-*), ``composition`` (COMP-1, COMP-2), ``profiles`` (COMP-3, COMP-4) and
``accountant`` (COMP-5, COMP-6), ``subsampling`` (SUB-*), ``training`` (SGD-*),
``selection`` (SEL-*), ``many_queries`` (MANY-*), ``auditing`` (MIA-*),
``local_sensitivity`` (LOCAL-*), ``query_release`` (REL-*) and ``local_frequency``
(FREQ-*). Importing the package imports all of them, as the export's
``explorers.load_all`` does (which also finds a new topic module by itself). Each figure
object draws on the numerical core (``dplearn.privacy_loss``, ``dplearn.calibration``,
...), which never plots.

Taught in: every lesson notebook.
"""

from dplearn.figures import (
    accountant,
    auditing,
    composition,
    delta,
    fonts,
    gaussian,
    intro,
    local_frequency,
    local_sensitivity,
    many_queries,
    mechanisms,
    noise,
    plrv,
    profiles,
    query_release,
    selection,
    subsampling,
    training,
)
from dplearn.figures.widgets import explore

__all__ = [
    "accountant",
    "auditing",
    "composition",
    "delta",
    "explore",
    "fonts",
    "gaussian",
    "intro",
    "local_frequency",
    "local_sensitivity",
    "many_queries",
    "mechanisms",
    "noise",
    "plrv",
    "profiles",
    "query_release",
    "selection",
    "subsampling",
    "training",
]
