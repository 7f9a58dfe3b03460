"""The parameters a learner can move, each with its valid range, made in one place.

A ``Control`` knows its symbol, its range and whether it moves on a log scale; a
``Choice`` picks one of a few named options (a mechanism, a loss) and shows them as
buttons with words. Figure objects declare theirs; ``dplearn.figures.widgets`` turns them
into sliders and buttons, and the tests and the benchmark sweep the same ranges, so a
control can offer only values that work.

A control that matters only for some options of a choice says so with ``applies_when``
(``SIGMA.replace(applies_when={"mechanism": "Gaussian"})``): the widgets hide it while
another option is chosen, so that no slider on the page does nothing, and the tests
check that every control shown changes the figure.

A control is declared once, at import, before a lesson chooses its language: its label,
description and options are marked ``N_`` where they are defined and translated
(``dplearn.language.gettext``) when the slider or the buttons are built.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from dplearn.figures import widget_models
from dplearn.language import N_
from dplearn.language import gettext as _

__all__ = [
    "Control",
    "Choice",
    "SteppedControl",
    "ListedControl",
    "listed",
    "shown_options",
    "EPSILON",
    "DELTA",
    "SIGMA",
    "SCALE",
    "SENSITIVITY",
    "INTEGER_SENSITIVITY",
    "COUNT",
    "THRESHOLD",
    "PROBABILITY",
    "PRIOR_ODDS",
]


def _conditions(applies_when):
    """applies_when as a hashable tuple of (choice name, options it applies to)."""
    if not applies_when:
        return ()
    items = applies_when.items() if isinstance(applies_when, dict) else applies_when
    conditions = []
    for name, options in items:
        options = (options,) if isinstance(options, str) else tuple(options)
        if not isinstance(name, str) or not options:
            raise ValueError(
                f"applies_when must map a choice's name to its options, got {applies_when!r}"
            )
        conditions.append((name, options))
    return tuple(sorted(conditions))


class _Applicability:
    """What Control and Choice share: whether they apply at a setting of the figure."""

    def applies(self, params):
        """Whether this control changes the figure at params (name -> value).

        It does unless one of its ``applies_when`` conditions names a choice whose value
        in params is not among the options listed for it.
        """
        return all(params.get(name) in options for name, options in self.applies_when)

    def shown_label(self):
        """The label in the current language, as the widget shows it."""
        return _(self.label)

    def tooltip(self, name=None):
        """The widget's tooltip: the description in the current language, else name or label."""
        if self.description:
            return _(self.description)
        return name or self.shown_label()


@dataclass(frozen=True)
class Control(_Applicability):
    """One slider's worth of parameter.

    Attributes:
      label: what the slider shows, a symbol such as r"$\varepsilon$" (Voilà and
        JupyterLab typeset $…$ in a widget's description with MathJax).
      minimum: smallest value offered.
      maximum: largest value offered.
      log: move on a log scale (for epsilon, delta, sigma, scales).
      integer: whole numbers only.
      step: step of a linear slider (ignored for log and integer ones).
      description: a few words for a tooltip.
      applies_when: the choices under which this control matters, as
        ``{choice name: option or options}``; empty (the default): always. Elsewhere the
        slider is hidden.
      on_release: the slider updates the figure when released, not while dragged (for
        a value whose fresh computation is too slow to repeat at every step of a drag:
        dragging would queue one per value passed on the way).
    """

    label: str
    minimum: float
    maximum: float
    log: bool = False
    integer: bool = False
    step: float | None = None
    description: str = ""
    applies_when: tuple = ()
    on_release: bool = False

    def __post_init__(self):
        object.__setattr__(self, "applies_when", _conditions(self.applies_when))
        if not self.minimum < self.maximum:
            raise ValueError(
                f"minimum must be below maximum, got {self.minimum!r} and {self.maximum!r}"
            )
        if self.log and self.minimum <= 0:
            raise ValueError(f"a log control needs minimum > 0, got {self.minimum!r}")

    def check(self, name, value):
        """The value as this control holds it, or a ValueError naming the parameter.

        Any finite number is accepted (figures may be driven beyond a slider's range
        from code); a log control also needs it > 0, an integer one a whole number.
        """
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a number, got {value!r}") from None
        if not np.isfinite(number) or (self.log and number <= 0):
            bound = "> 0" if self.log else "a number"
            raise ValueError(f"{name} must be finite and {bound}, got {value!r}")
        if self.integer:
            if number != np.floor(number):
                raise ValueError(f"{name} must be a whole number, got {value!r}")
            return int(number)
        return number

    def offers(self, value):
        """Whether the slider can show value."""
        return self.minimum <= value <= self.maximum

    @property
    def ends(self):
        """The two most different values offered: the slider's ends."""
        return self.minimum, self.maximum

    def bad_values(self):
        """Values that ``check`` must reject (the tests feed them to every figure)."""
        bad = [float("nan"), float("inf"), "many"]
        if self.log:
            bad += [0.0, -self.minimum]
        if self.integer:
            bad += [self.minimum + 0.5]
        return bad

    def replace(self, **changes):
        """A copy with some attributes changed (a narrower range, another label)."""
        return dataclasses.replace(self, **changes)

    def clip(self, value):
        """The nearest value this control offers."""
        value = min(max(value, self.minimum), self.maximum)
        return int(round(value)) if self.integer else float(value)

    def sample(self, count, rng):
        """The minimum, the maximum and count - 2 random values in between."""
        if self.log:
            inner = np.exp(rng.uniform(np.log(self.minimum), np.log(self.maximum), count - 2))
        else:
            inner = rng.uniform(self.minimum, self.maximum, count - 2)
        return [self.clip(v) for v in [self.minimum, self.maximum, *inner]]

    def slider(self, value, name=None):
        """An ipywidgets slider for this control, starting at value."""
        import ipywidgets as widgets

        common = dict(
            description=self.shown_label(),
            description_allow_html=False,
            continuous_update=not self.on_release,
            tooltip=self.tooltip(name),
            # Its own layout (a control is hidden or shown), the page's one style.
            layout=widgets.Layout(width="30em"),
            style=widget_models.style(widgets.FloatSlider, description_width="8em"),
        )
        if self.integer:
            return widgets.IntSlider(
                value=self.clip(value), min=int(self.minimum), max=int(self.maximum), **common
            )
        value = self.clip(value)
        if self.log:
            low, high = np.log10(self.minimum), np.log10(self.maximum)
            return widgets.FloatLogSlider(
                value=value,
                base=10,
                min=low,
                max=high,
                step=_step_through(low, np.log10(value), (high - low) / 200),
                readout_format=".4g",
                **common,
            )
        nominal = self.step or (self.maximum - self.minimum) / 200
        return widgets.FloatSlider(
            value=value,
            min=self.minimum,
            max=self.maximum,
            step=_step_through(self.minimum, value, nominal),
            readout_format=".4g",
            **common,
        )


@dataclass(frozen=True)
class Choice(_Applicability):
    """A pick among named options, shown as toggle buttons with words, never a number.

    Attributes:
      label: what the buttons show before the options, such as "mechanism".
      options: the values offered, each a short word shown on its button.
      description: a few words for a tooltip.
      applies_when: as for ``Control``: the choices under which these buttons matter.
    """

    label: str
    options: tuple[str, ...]
    description: str = ""
    applies_when: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "applies_when", _conditions(self.applies_when))
        if len(self.options) < 2 or len(set(self.options)) != len(self.options):
            raise ValueError(f"options must be two or more distinct words, got {self.options!r}")

    def check(self, name, value):
        """The value if it is one of the options, else a ValueError naming the parameter."""
        if not isinstance(value, str) or value not in self.options:
            raise ValueError(f"{name} must be one of {list(self.options)}, got {value!r}")
        return value

    def offers(self, value):
        """Whether the buttons can show value."""
        return value in self.options

    @property
    def ends(self):
        """The first and the last option."""
        return self.options[0], self.options[-1]

    def bad_values(self):
        """Values that ``check`` must reject."""
        return [float("nan"), 1, "many", None]

    def clip(self, value):
        """The value if offered, else the first option."""
        return value if value in self.options else self.options[0]

    def sample(self, count, rng):
        """The first and the last option, then count - 2 random ones."""
        inner = rng.choice(len(self.options), size=count - 2)
        return [*self.ends, *(self.options[i] for i in inner)]

    def slider(self, value, name=None):
        """Toggle buttons for this choice, starting at value."""
        import ipywidgets as widgets

        buttons = widgets.ToggleButtons(
            options=shown_options(self.options),
            value=self.clip(value),
            description=self.shown_label(),
            tooltips=[self.tooltip(name)] * len(self.options),
            style=widget_models.style(
                widgets.ToggleButtons, description_width="8em", button_width="auto"
            ),
            # On one row with its label, as a slider is (by default the label sits above).
            layout=widgets.Layout(display="flex", flex_flow="row nowrap", align_items="center"),
        )
        # The sliders' class: their label style (right-aligned against the control).
        buttons.add_class("widget-inline-hbox")
        return buttons


def shown_options(options):
    """The options as a widget offers them: each in the current language, its value English.

    (label, option) pairs where a translation differs, else the options themselves, so that
    an English page gets the very widget it always had.
    """
    labels = [_(option) for option in options]
    if labels == list(options):
        return labels
    return list(zip(labels, options, strict=True))


def _step_through(low, value, nominal):
    """A step close to nominal whose grid, counted from low, passes through value.

    A slider snaps to low + k * step: without this, a slider that opens at the
    lessons' epsilon = ln 3 would hand the figure a nearby grid value instead.
    """
    span = value - low
    if span <= 0:
        return nominal
    return span / max(1, round(span / nominal))


@dataclass(frozen=True)
class SteppedControl(Control):
    """A slider over a few listed values, each shown as typed and used exactly as shown.

    A log slider moves in steps of its exponent, so it hands the figure values such as
    0.005012 while a reader takes them for 0.005; a grid width must divide the loss
    +-epsilon0 of one Laplace release, and 0.005012 does not divide 0.1. This slider
    offers only ``values`` (a ``SelectionSlider``, its readout the value itself).
    """

    values: tuple = ()

    def __post_init__(self):
        super().__post_init__()
        values = tuple(sorted(float(v) for v in self.values))
        if len(values) < 2 or values[0] != self.minimum or values[-1] != self.maximum:
            raise ValueError(f"values must run from minimum to maximum, got {self.values!r}")
        object.__setattr__(self, "values", values)

    def check(self, name, value):
        """The listed value equal to value (as a number or its text), else a ValueError."""
        number = super().check(name, value)
        for offered in self.values:
            if abs(number - offered) <= 1e-12 * offered:
                return offered
        listed = ", ".join(f"{v:g}" for v in self.values)
        raise ValueError(f"{name} must be one of {listed}, got {value!r}")

    def offers(self, value):
        """Whether value is one of the listed values."""
        return any(abs(float(value) - offered) <= 1e-12 * offered for offered in self.values)

    def clip(self, value):
        """The listed value nearest to value (on a log scale)."""
        value = min(max(float(value), self.minimum), self.maximum)
        return min(self.values, key=lambda offered: abs(np.log(offered / value)))

    def sample(self, count, rng):
        """The minimum, the maximum and count - 2 random listed values."""
        inner = rng.choice(len(self.values), size=count - 2)
        return [self.minimum, self.maximum, *(self.values[i] for i in inner)]

    def bad_values(self):
        # Between two listed values: a width the figure must refuse, not round.
        """Values that ``check`` must reject, with one between the first two listed values."""
        return super().bad_values() + [float(np.sqrt(self.values[0] * self.values[1]))]

    def label_of(self, value):
        """The text the slider shows for a listed value."""
        return f"{value:g}"

    def slider(self, value, name=None):
        """A ``SelectionSlider`` over the listed values, starting at the one nearest value."""
        import ipywidgets as widgets

        value = self.clip(value)
        slider = widgets.SelectionSlider(
            options=[(self.label_of(v), v) for v in self.values],
            value=value,
            description=self.shown_label(),
            continuous_update=True,
            tooltip=self.tooltip(name),
            # Its own layout (a control is hidden or shown), the page's one style.
            layout=widgets.Layout(width="30em"),
            style=widget_models.style(widgets.FloatSlider, description_width="8em"),
        )
        # ipywidgets leaves the label empty when the value is the first option.
        slider.label = self.label_of(value)
        return slider


@dataclass(frozen=True)
class ListedControl(SteppedControl):
    """A slider over listed values, each a step that matters: a key press moves to the next.

    The batch size doubles (16, 32, ..., 2048: halving it is one press, not 128), sigma
    and the clipping norm take the values the lesson and its sources use (sigma = 4 and
    1.1 exactly), delta moves by powers of ten and reads "1e-5". Whole numbers are handed
    to the figure as whole numbers. On release when ``on_release`` says so, like
    ``Control``'s sliders.
    """

    def check(self, name, value):
        """The listed value equal to value, as an int for an integer control, else a ValueError."""
        offered = super().check(name, value)
        return int(offered) if self.integer else offered

    def clip(self, value):
        """The listed value nearest to value (on a log scale), as an int for an integer control."""
        offered = super().clip(value)
        return int(offered) if self.integer else offered

    def label_of(self, value):
        """The text the slider shows for a listed value: "1e-5" for small ones."""
        if self.integer:
            return f"{int(value)}"
        if value < 1e-3:
            mantissa, exponent = f"{value:.0e}".split("e")
            return f"{mantissa}e{int(exponent)}"
        return f"{value:g}"

    def slider(self, value, name=None):
        """The slider of ``SteppedControl``, moving the figure on release when ``on_release``."""
        slider = super().slider(value, name)
        slider.continuous_update = not self.on_release
        return slider


def listed(control, values, **changes):
    """control (its label, description, release) as a slider over values only."""
    return ListedControl(
        control.label,
        min(values),
        max(values),
        integer=control.integer,
        description=control.description,
        on_release=control.on_release,
        values=tuple(values),
        **changes,
    )


EPSILON = Control(r"$\varepsilon$", 0.01, 20.0, log=True, description=N_("privacy budget epsilon"))
DELTA = Control(r"$\delta$", 1e-12, 0.1, log=True, description=N_("allowed failure mass delta"))
SIGMA = Control(
    r"$\sigma$", 0.1, 20.0, log=True, description=N_("standard deviation of Gaussian noise")
)
SCALE = Control(N_("scale $b$"), 0.05, 20.0, log=True, description=N_("scale of Laplace noise"))
SENSITIVITY = Control(r"$\Delta$", 0.1, 10.0, log=True, description=N_("sensitivity of the query"))
INTEGER_SENSITIVITY = Control(
    r"$\Delta$", 1, 10, integer=True, description=N_("whole-number sensitivity")
)
COUNT = Control(N_("count"), 0, 5000, integer=True, description=N_("true count in a data set"))
THRESHOLD = Control(
    N_("threshold"), 1.0, 20.0, step=0.1, description=N_("smallest published count")
)
PROBABILITY = Control("$p$", 0.001, 0.999, step=0.001, description=N_("a probability"))
PRIOR_ODDS = Control(N_("prior odds"), 0.01, 100.0, log=True, description="P[D1] / P[D2]")
