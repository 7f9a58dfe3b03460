"""Small calculators: a few number boxes and what the package computes from them.

Some exercises need a number no slider lands on exactly: the δ of a Gaussian release at
any ε (to find where it crosses a target), the linear program of lesson 05 at another
setting, both Gaussian σ at any (ε, δ), an accountant's bracket. In Voilà nobody can run
code, so each lesson that needs one shows a calculator: type the parameters, read the
numbers (six significant digits, a decimal point, never a comma). The numbers come from
the package's exact functions; a calculator only arranges them.

``Calculator.numbers(**values)`` is the readout as a dict (what tests check);
``Calculator.widget()`` the boxes and the readout for a notebook cell. Titles, box labels,
options and readout names are defined in English, marked ``N_``; the widget shows them in
the current language (``dplearn.language.gettext``), and the dict stays English.

Taught in: 02-see-what-delta-means.ipynb, 05-add-laplace-and-geometric-noise.ipynb,
06-calibrate-gaussian-noise.ipynb, 08-add-up-privacy-losses.ipynb,
09-count-privacy-with-an-accountant.ipynb
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

from dplearn import composition, optimality, privacy_loss
from dplearn.calibration import gaussian_sigma_analytic, gaussian_sigma_classic
from dplearn.figures.controls import shown_options
from dplearn.language import N_
from dplearn.language import gettext as _

__all__ = [
    "Box",
    "Calculator",
    "GaussianDelta",
    "LinearProgram",
    "GaussianSigma",
    "LaplaceBracket",
    "format_digits",
]


def format_digits(value, digits=6):
    """A number with ``digits`` significant digits and a decimal point, as a learner types it.

    Small and large numbers in e-notation (``1.23457e-05``), which the answer boxes read.
    """
    if isinstance(value, str):
        return value
    value = float(value)
    if math.isnan(value):
        return _("undefined")
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.{digits}g}"


@dataclass(frozen=True)
class Box:
    """One input of a calculator.

    Attributes:
      label: what the box shows, a symbol such as r"$\\varepsilon$".
      default: the value it opens with.
      minimum, maximum: the values it accepts (the box clamps to them).
      integer: whole numbers only.
      options: for a choice, the words offered (then minimum and maximum are unused).
    """

    label: str
    default: object
    minimum: float = 0.0
    maximum: float = 1.0
    integer: bool = False
    options: tuple = ()

    def check(self, name, value):
        """The value if this box accepts it, else a ValueError naming the parameter."""
        if self.options:
            if value not in self.options:
                raise ValueError(f"{name} must be one of {list(self.options)}, got {value!r}")
            return value
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a number, got {value!r}") from None
        if not self.minimum <= number <= self.maximum:
            raise ValueError(
                f"{name} must lie in [{self.minimum:g}, {self.maximum:g}], got {value!r}"
            )
        if self.integer:
            if number != math.floor(number):
                raise ValueError(f"{name} must be a whole number, got {value!r}")
            return int(number)
        return number

    def widget(self):
        """The input widget: a dropdown for options, else a bounded number box."""
        import ipywidgets as widgets

        common = dict(
            description=_(self.label),
            style={"description_width": "13em"},
            layout=widgets.Layout(width="25em"),
        )
        if self.options:
            options = shown_options(self.options)
            return widgets.Dropdown(options=options, value=self.default, **common)
        if self.integer:
            return widgets.BoundedIntText(
                value=int(self.default), min=int(self.minimum), max=int(self.maximum), **common
            )
        return widgets.BoundedFloatText(
            value=float(self.default), min=self.minimum, max=self.maximum, step=None, **common
        )


class Calculator:
    """Number boxes in, a readout out; subclasses set ``title``, ``boxes`` and ``_compute``."""

    title = ""
    #: name -> Box, in the order shown.
    boxes: dict[str, Box] = {}

    def numbers(self, **values):
        """The readout (label -> number) at these values; defaults for the ones left out."""
        unknown = set(values) - set(self.boxes)
        if unknown:
            raise ValueError(f"unknown inputs {sorted(unknown)}; known: {list(self.boxes)}")
        checked = {
            name: box.check(name, values.get(name, box.default)) for name, box in self.boxes.items()
        }
        return self._compute(**checked)

    def _compute(self, **values):
        raise NotImplementedError

    def readout_html(self, **values):
        """The readout as an HTML table, numbers in monospace; a bad input says why."""
        try:
            numbers = self.numbers(**values)
        except ValueError as problem:
            return f"<span style='color:#b35900'>{html.escape(str(problem))}</span>"
        rows = "".join(
            f"<tr><td style='padding-right:1.5em'>{html.escape(_(name), quote=False)}</td>"
            f"<td style='font-family:monospace'>{html.escape(format_digits(value))}</td></tr>"
            for name, value in numbers.items()
        )
        return f"<table>{rows}</table>"

    def widget(self):
        """The boxes, and the readout under them, updated whenever a box changes."""
        import ipywidgets as widgets

        inputs = {name: box.widget() for name, box in self.boxes.items()}
        readout = widgets.HTMLMath(layout=widgets.Layout(margin="0.3em 0 0 13.5em"))

        def update(_change=None):
            readout.value = self.readout_html(**{name: view.value for name, view in inputs.items()})

        for view in inputs.values():
            view.observe(update, names="value")
        update()
        heading = widgets.HTML(
            "<b>" + _("Calculator · {title}").format(title=html.escape(_(self.title))) + "</b>"
        )
        box = widgets.VBox([heading, *inputs.values(), readout])
        box.add_class("dplearn-calculator")
        box.inputs, box.readout = inputs, readout
        return box

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget())


class GaussianDelta(Calculator):
    """δ₁ and δ₂ of one Gaussian release: σ, Δ and ε in, Balle & Wang's exact δ out."""

    title = N_("δ of one Gaussian release")
    boxes = {
        "sigma": Box(N_(r"$\sigma$ (standard deviation)"), 1.0, 1e-3, 1e3),
        "sensitivity": Box(r"$\Delta$", 1.0, 1e-3, 1e3),
        "epsilon": Box(r"$\varepsilon$", 1.0, 0.0, 100.0),
    }

    def _compute(self, sigma, sensitivity, epsilon):
        pair = privacy_loss.gaussian(sigma, sensitivity)
        return {
            N_(r"width $\delta_1 = \Pr[\mathcal{L} > \varepsilon]$"): pair.loss_exceeds(epsilon),
            N_(r"area $\delta_2$, the $\delta$ of $(\varepsilon, \delta)$-DP"): pair.delta(epsilon),
        }


class LinearProgram(Calculator):
    """Lesson 05's linear program for a count in {0, …, n}.

    It compares the best ε-DP mechanism with the truncated geometric one, as it is and
    after the user's best remap.
    """

    title = N_("the best ε-DP mechanism for a count in {0, …, n}")
    boxes = {
        "count_range": Box(N_("largest count $n$"), 8, 1, 12, integer=True),
        "epsilon": Box(r"$\varepsilon$", 1.0, 0.01, 10.0),
        "prior": Box(N_("prior"), "uniform", options=(N_("uniform"), N_("Binomial(n, 0.3)"))),
        "loss": Box(
            N_("loss"),
            "absolute",
            options=(N_("absolute"), N_("squared"), N_("beyond tolerance")),
        ),
    }

    def _compute(self, count_range, epsilon, prior, loss):
        if prior == "uniform":
            weights = optimality.uniform_prior(count_range)
        else:
            weights = optimality.binomial_prior(count_range, 0.3)
        result = optimality.compare(weights, optimality.loss_matrix(count_range, loss), epsilon)
        return {
            N_("best ε-DP mechanism (LP optimum), expected loss"): result.optimal.expected_loss,
            N_("truncated geometric, as it is"): result.geometric.expected_loss,
            N_("truncated geometric + the user's best remap"): result.remapped.expected_loss,
        }


class GaussianSigma(Calculator):
    """The classic σ and the smallest valid (analytic) σ at (ε, δ, Δ), and their ratio."""

    title = N_("classic and analytic σ")
    boxes = {
        "epsilon": Box(r"$\varepsilon$", 1.0, 1e-3, 100.0),
        "delta": Box(r"$\delta$", 1e-5, 1e-300, 0.5),
        "sensitivity": Box(N_(r"$\ell_2$ sensitivity $\Delta$"), 1.0, 1e-6, 1e6),
    }

    def _compute(self, epsilon, delta, sensitivity):
        if not 0.0 < delta < 1.0:
            raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
        classic = gaussian_sigma_classic(epsilon, delta, sensitivity)
        analytic = gaussian_sigma_analytic(epsilon, delta, sensitivity)
        return {
            N_(r"classic $\sigma = \sqrt{2\ln(1.25/\delta)}\,\Delta/\varepsilon$"): classic,
            N_(r"analytic $\sigma$ (the smallest valid one)"): analytic,
            N_(r"classic $\sigma$ ÷ analytic $\sigma$"): classic / analytic,
        }


class LaplaceBracket(Calculator):
    """k Laplace releases on a grid of width h: δ(ε) rounded down, exact, rounded up."""

    title = N_("an accountant's δ for k Laplace releases")
    boxes = {
        "epsilon0": Box(N_(r"one release's $\varepsilon_0 = 1/b$"), 0.1, 0.01, 2.0),
        "releases": Box(N_("releases $k$"), 10, 1, 200, integer=True),
        "grid_width": Box(N_("grid width $h$"), 0.01, 1e-3, 1.0),
        "epsilon": Box(r"$\varepsilon$", 0.5, 0.0, 50.0),
    }

    def _compute(self, epsilon0, releases, grid_width, epsilon):
        if epsilon0 <= 0:
            raise ValueError(f"epsilon0 must be > 0, got {epsilon0!r}")
        laplace = privacy_loss.laplace(1.0 / epsilon0)
        low, high = composition.pld_bracket(laplace, releases, grid_width).delta(epsilon)
        exact = composition.compose(laplace, releases).delta(epsilon)
        return {
            N_("every loss rounded down (optimistic)"): low,
            N_("exact (lesson 08)"): exact,
            N_("every loss rounded up (pessimistic)"): high,
        }
