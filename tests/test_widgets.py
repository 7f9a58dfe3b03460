"""Sliders made from controls drive a figure object in place, with no kernel or browser.

Every registered figure is checked here too: in each combination of its buttons, every
slider shown moves the picture, and every hidden one (``applies_when``) does not.
"""

import itertools
import math
import subprocess
import sys
import textwrap

import ipywidgets as widgets
import numpy as np
import pytest

from dplearn import privacy_loss
from dplearn.figures import controls, widget_models
from dplearn.figures.explorers import Explorer, load_all, spoken
from dplearn.figures.widgets import explore, format_number, numbers_table
from tests import shared_explorers


class GaussianDensities(Explorer):
    """A small figure object for these tests (not registered)."""

    figure_id = "TEST-1"
    title = "Two Gaussian densities"
    controls = {"sigma": controls.SIGMA, "sensitivity": controls.SENSITIVITY}
    defaults = {"sigma": math.sqrt(3), "sensitivity": 1.0}

    def _build(self):
        self.axes = self.figure.subplots()
        self.outputs = np.linspace(-10, 10, 200)
        (self.line_d1,) = self.axes.plot(self.outputs, self.outputs * 0)
        (self.line_d2,) = self.axes.plot(self.outputs, self.outputs * 0)
        self.axes.set_ylim(0, 4)
        self.moving(self.line_d1, self.line_d2)

    def _apply(self, sigma, sensitivity):
        pair = privacy_loss.gaussian(sigma, sensitivity)
        self.line_d1.set_ydata(pair.density_d1(self.outputs))
        self.line_d2.set_ydata(pair.density_d2(self.outputs))

    def numbers(self):
        pair = privacy_loss.gaussian(self.params["sigma"], self.params["sensitivity"])
        return {"δ at ε = ln 3": pair.delta(math.log(3))}

    def description(self):
        return f"Two Gaussian densities of σ = {spoken(self.params['sigma'])} apart by 1."


def test_sliders_offer_the_controls_ranges_and_drive_the_figure():
    explorer = GaussianDensities()
    view = explore(explorer)
    sigma = view.sliders["sigma"]
    assert isinstance(sigma, widgets.FloatLogSlider)
    assert 10**sigma.min == pytest.approx(controls.SIGMA.minimum)
    assert 10**sigma.max == pytest.approx(controls.SIGMA.maximum)
    before = explorer.line_d1.get_ydata().copy()
    sigma.value = 2.0
    assert explorer.params["sigma"] == 2.0
    assert not np.allclose(before, explorer.line_d1.get_ydata())
    expected = privacy_loss.gaussian(2.0).delta(math.log(3))
    assert format_number(expected) in view.readout.value


@pytest.mark.parametrize("value", [math.log(3), 1.0, 0.01, 20.0, 0.37])
def test_the_slider_grid_passes_through_the_starting_value(value):
    slider = controls.EPSILON.slider(value)
    steps = (math.log10(value) - slider.min) / slider.step
    assert steps == pytest.approx(round(steps), abs=1e-9)
    assert slider.value == pytest.approx(value, rel=1e-12)
    linear = controls.THRESHOLD.slider(4.37)
    steps = (4.37 - linear.min) / linear.step
    assert steps == pytest.approx(round(steps), abs=1e-9)


def test_invalid_value_leaves_the_figure_as_it_was():
    explorer = GaussianDensities()
    before = explorer.line_d1.get_ydata().copy()
    with pytest.raises(ValueError, match="sigma must be finite and > 0"):
        explorer.update(sigma=-1.0)
    assert explorer.params["sigma"] == pytest.approx(math.sqrt(3))
    np.testing.assert_array_equal(before, explorer.line_d1.get_ydata())


def test_static_renderers_get_a_png():
    bundle = explore(GaussianDensities())._repr_mimebundle_()
    assert bundle["image/png"] and "application/vnd.jupyter.widget-view+json" in bundle
    assert "<img" in bundle["text/html"]
    # The image's alt text is the figure's description at its current setting.
    assert "alt='Two Gaussian densities of σ = 1.73 apart by 1.'" in bundle["text/html"]


def test_figure_text_follows_the_sliders_and_shows_a_table_on_request():
    view = explore(GaussianDensities())
    text = view.text
    assert text.name.value == "Figure TEST-1: Two Gaussian densities"
    assert "σ = 1.73" in text.description.value
    assert text.table.layout.display == "none" and text.table.value == ""
    view.sliders["sigma"].value = 4.0
    assert "σ = 4 " in text.description.value
    text.toggle.value = True
    assert text.table.layout.display is None
    assert "<table>" in text.table.value and "σ = 4 " in text.table.value
    assert "<th scope='row'" in text.table.value and "δ at ε = ln 3" in text.table.value
    view.sliders["sigma"].value = 2.0
    assert "σ = 2 " in text.table.value
    text.toggle.value = False
    assert text.table.layout.display == "none"


def test_the_page_script_comes_with_the_first_figure(monkeypatch):
    from dplearn.figures import page_access

    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *args, **kwargs: shown.append(args))
    monkeypatch.setattr(page_access, "_shown", False)
    view = explore(GaussianDensities())
    shown.clear()
    view._ipython_display_()
    script, bundle = shown
    assert "dplearnPageAccess" in script[0].data and "aria-labelledby" in script[0].data
    assert "application/vnd.jupyter.widget-view+json" in bundle[0]
    # Once per kernel: the next figure comes alone.
    shown.clear()
    view._ipython_display_()
    (bundle,) = shown
    assert "application/vnd.jupyter.widget-view+json" in bundle[0]


def test_number_formatting():
    assert format_number(0.0106240317332568) == "0.01062"
    assert format_number(6.17e-5) == "6.1700 × 10<sup>-5</sup>"
    assert format_number(0.5) == "0.5"
    assert format_number(math.inf) == "∞"
    assert "δ" in numbers_table({"δ": 0.1})


@pytest.mark.parametrize("control", [controls.EPSILON, controls.COUNT, controls.THRESHOLD])
def test_control_samples_stay_in_range(control):
    values = control.sample(20, np.random.default_rng(0))
    assert values[0] == control.minimum and values[1] == control.maximum
    assert all(control.minimum <= v <= control.maximum for v in values)


def test_control_rejects_an_empty_range():
    with pytest.raises(ValueError, match="minimum must be below maximum"):
        controls.Control("x", 2.0, 1.0)
    with pytest.raises(ValueError, match="log control needs minimum > 0"):
        controls.Control("x", 0.0, 1.0, log=True)


def test_a_choice_is_buttons_with_words_and_rejects_anything_else():
    choice = controls.Choice("mechanism", ("Gaussian", "Laplace"), "noise added")
    buttons = choice.slider("Laplace", "mechanism")
    assert isinstance(buttons, widgets.ToggleButtons)
    assert list(buttons.options) == ["Gaussian", "Laplace"] and buttons.value == "Laplace"
    assert choice.check("mechanism", "Gaussian") == "Gaussian"
    for bad in choice.bad_values():
        with pytest.raises(ValueError, match="mechanism must be one of"):
            choice.check("mechanism", bad)
    values = choice.sample(10, np.random.default_rng(0))
    assert values[:2] == ["Gaussian", "Laplace"] and set(values) <= set(choice.options)
    with pytest.raises(ValueError, match="two or more distinct"):
        controls.Choice("x", ("one",))


def test_a_live_figure_drawn_before_its_view_is_ready_still_shows():
    """The browser must never receive a bare-base64 `_data_url` it cannot load.

    Run All in JupyterLab can deliver a figure's draw request to the kernel before the
    messages with which its view reports itself ready; the image drawn then must still
    reach the browser as a loadable `_data_url`, or the figure stays blank. This replays
    that order against a live ipympl canvas, in a subprocess so that this process keeps
    its own backend.
    """
    script = textwrap.dedent(
        """
        import matplotlib
        matplotlib.use("module://ipympl.backend_nbagg")
        from dplearn.figures import plrv
        from dplearn.figures.widgets import explore

        explorer = plrv.LaplaceDensities()
        explore(explorer)
        canvas = explorer.figure.canvas
        sent = []
        canvas.send = lambda content, buffers=None: sent.append((content, buffers))
        for kind in ["draw", "refresh", "send_image_mode", "initialized", "draw"]:
            canvas._handle_message(canvas, {"type": kind}, [])
        images = [buffers for _, buffers in sent if buffers]
        assert len(images) == 2, len(images)
        url = canvas._data_url
        assert url is None or url.startswith("data:image/png;base64,"), url[:40]
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


# --- A projector-sized layout ----------------------------------------------------------


class ManyNumbers(GaussianDensities):
    """The test figure with five controls, a wide figure and a short readout."""

    figure_id = "TEST-2"
    controls = {
        "sigma": controls.SIGMA,
        "sensitivity": controls.SENSITIVITY,
        "epsilon": controls.EPSILON,
        "delta": controls.DELTA,
        "mechanism": controls.Choice("mechanism", ("Gaussian", "Laplace")),
    }
    defaults = {
        "sigma": math.sqrt(3),
        "sensitivity": 1.0,
        "epsilon": 1.0,
        "delta": 1e-5,
        "mechanism": "Gaussian",
    }
    figsize = (11.0, 3.6)

    def _apply(self, sigma, sensitivity, epsilon, delta, mechanism):
        super()._apply(sigma, sensitivity)

    def numbers(self):
        return {f"$x_{{{index}}}$": float(index) for index in range(3)}


def test_many_controls_go_in_two_columns_and_a_long_readout_in_columns_too():
    view = explore(ManyNumbers())
    top, figure, text, style = view.children
    assert style is view.fit_style and text is view.text
    controls_box, readout = top.children
    assert isinstance(controls_box, widgets.GridBox)
    assert controls_box.layout.grid_template_columns == "repeat(2, max-content)"
    assert readout is view.readout and figure is view.view
    # Twelve numbers above a wide figure, beside one slider: two columns of six rows.
    from dplearn.figures.widgets import _layout

    assert _layout(view.explorer, 1, 12) == (False, 1, 2)
    # The buttons are a control like the sliders, with words.
    assert isinstance(view.sliders["mechanism"], widgets.ToggleButtons)


def test_a_narrow_figure_gets_its_readout_beside_it():
    view = explore(GaussianDensities())
    controls_box, row, text, style = view.children
    assert text is view.text
    assert (
        isinstance(controls_box, widgets.VBox) and "dplearn-controls" in controls_box._dom_classes
    )
    assert row.children == (view.view, view.readout)
    assert "dplearn-exploration" in view._dom_classes
    # A figure wider than the notebook's column scales down to it (JupyterLab with its
    # file browser open), through a style sheet that only the box's own figure matches.
    assert style is view.fit_style and style.layout.display == "none"
    assert "max-width:100% !important" in style.value and ".dplearn-exploration" in style.value


def test_readout_names_are_typeset_once_and_only_numbers_change():
    explorer = GaussianDensities()
    view = explore(explorer)
    (column,) = view.readout.children
    names, values = column.children
    assert isinstance(names, widgets.HTMLMath) and "δ at ε = ln 3" in names.value
    assert not isinstance(values, widgets.HTMLMath)
    before_names, before_values = names.value, values.value
    view.sliders["sigma"].value = 0.5
    (column_after,) = view.readout.children
    assert column_after.children[0] is names and names.value == before_names
    assert values.value != before_values
    expected = privacy_loss.gaussian(0.5).delta(math.log(3))
    assert format_number(expected) in values.value and format_number(expected) in view.readout.value


def test_refresh_shows_a_change_made_from_code():
    explorer = GaussianDensities()
    view = explore(explorer)
    explorer.update(sigma=4.0)
    view.refresh()
    expected = privacy_loss.gaussian(4.0).delta(math.log(3))
    assert format_number(expected) in view.readout.value


# --- Every control shown does something ------------------------------------------------


class Toggled(GaussianDensities):
    """The test figure with a toggle: sigma only for Gaussian noise, scale only for Laplace."""

    figure_id = "TEST-3"
    controls = {
        "noise": controls.Choice("noise", ("Gaussian", "Laplace")),
        "sigma": controls.SIGMA.replace(applies_when={"noise": "Gaussian"}),
        "scale": controls.SCALE.replace(applies_when={"noise": ("Laplace",)}),
        "sensitivity": controls.SENSITIVITY,
    }
    defaults = {"noise": "Gaussian", "sigma": math.sqrt(3), "scale": 1.0, "sensitivity": 1.0}

    def _apply(self, noise, sigma, scale, sensitivity):
        pair = (
            privacy_loss.gaussian(sigma, sensitivity)
            if noise == "Gaussian"
            else privacy_loss.laplace(scale, sensitivity)
        )
        self.line_d1.set_ydata(pair.density_d1(self.outputs))
        self.line_d2.set_ydata(pair.density_d2(self.outputs))

    def numbers(self):
        return {}


def test_a_control_that_does_not_apply_is_hidden_and_shows_again_when_it_does():
    explorer = Toggled()
    view = explore(explorer)
    shown = {name: slider.layout.display for name, slider in view.sliders.items()}
    assert shown["scale"] == "none" and shown["sigma"] != "none"
    assert shown["sensitivity"] != "none" and shown["noise"] == "flex"
    view.sliders["noise"].value = "Laplace"
    assert view.sliders["sigma"].layout.display == "none"
    assert view.sliders["scale"].layout.display != "none"
    # Changed from code, then refreshed: the same rule.
    explorer.update(noise="Gaussian")
    view.refresh()
    assert view.sliders["scale"].layout.display == "none"
    assert view.sliders["sigma"].layout.display != "none"
    assert view.sliders["noise"].layout.display == "flex"


def test_applies_when_takes_one_option_or_several_and_nothing_else():
    sigma = controls.SIGMA.replace(applies_when={"noise": "Gaussian"})
    assert sigma.applies_when == (("noise", ("Gaussian",)),)
    assert sigma.applies({"noise": "Gaussian"}) and not sigma.applies({"noise": "Laplace"})
    assert controls.SIGMA.applies({}) and controls.SIGMA.applies({"noise": "Laplace"})
    with pytest.raises(ValueError, match="applies_when"):
        controls.SIGMA.replace(applies_when={"noise": ()})


EXPLORERS = load_all()


def _pixels(figure):
    figure.canvas.draw()
    return np.asarray(figure.canvas.buffer_rgba()).copy()


def _choice_settings(explorer_class):
    """Every combination of the figure's choices, as {name: option}."""
    choices = {
        name: control.options
        for name, control in explorer_class.controls.items()
        if isinstance(control, controls.Choice)
    }
    for combination in itertools.product(*choices.values()):
        yield dict(zip(choices, combination, strict=True))


@pytest.mark.parametrize("figure_id", list(EXPLORERS))
def test_applies_when_names_a_choice_of_the_figure_and_its_options(figure_id):
    explorer_class = EXPLORERS[figure_id]
    for name, control in explorer_class.controls.items():
        for choice, options in control.applies_when:
            assert isinstance(explorer_class.controls.get(choice), controls.Choice), (name, choice)
            assert set(options) <= set(explorer_class.controls[choice].options), (name, options)


@pytest.mark.parametrize("figure_id", list(EXPLORERS))
def test_every_control_shown_moves_the_figure_in_every_choice(figure_id):
    """In each combination of the figure's buttons, each slider shown changes the picture
    when moved to its minimum or its maximum, and each hidden one changes nothing.

    A slider that does nothing while shown is one a learner moves and thinks the page is
    broken; a hidden one that does something hides part of the lesson.
    """
    explorer = shared_explorers.at(figure_id)
    dead, hidden_alive = [], []
    for choices in _choice_settings(type(explorer)):
        explorer.update(**choices)
        for name, control in explorer.controls.items():
            if isinstance(control, controls.Choice):
                continue
            start = explorer.params[name]
            before = _pixels(explorer.figure)
            changed = False
            for end in control.ends:
                explorer.update(**{name: end})
                changed = changed or bool((_pixels(explorer.figure) != before).any())
            explorer.update(**{name: start})
            if explorer.applies(name) and not changed:
                dead.append(f"{name} under {choices}")
            elif not explorer.applies(name) and changed:
                hidden_alive.append(f"{name} under {choices}")
    assert not dead, f"{figure_id}: shown but moving them changes nothing: {dead}"
    assert not hidden_alive, f"{figure_id}: hidden but they change the figure: {hidden_alive}"


def test_shared_layouts_and_styles_stay_as_made():
    """Figure boxes share their fixed layouts and styles (dplearn.figures.widget_models): moving
    every choice through its options, opening the table, and checking an answer in an
    answer box beside them change none of them, and no control's own layout is shared."""
    made = {id(model) for model, _traits in widget_models.shared()}
    for figure_id in EXPLORERS:
        view = explore(EXPLORERS[figure_id]())
        shared_ids = {id(model) for model, _traits in widget_models.shared()}
        for name, control in view.explorer.controls.items():
            slider = view.sliders[name]
            assert id(slider.layout) not in shared_ids, name
            for value in control.options if isinstance(control, controls.Choice) else ():
                slider.value = value
        view.text.toggle.value = True
        view.text.toggle.value = False
    # And an answer box of each kind, checked with a wrong answer, then its solution shown.
    from dplearn import exercises

    kinds = {item.kind: item for item in exercises.load_all().values()}
    for item in kinds.values():
        box = item.widget()
        if item.kind != "choice":
            box.answer.value = "not an answer"
        box.run_check()
        box.show_solution()
    models = widget_models.shared()
    assert models and {id(model) for model, _ in models} >= made
    for model, traits in models:
        now = {name: getattr(model, name) for name in traits}
        assert now == traits, (type(model).__name__, traits, now)
    # All lessons' figure boxes share a dozen today: a few kinds of box, not one per widget.
    assert len(models) <= 25, [(type(m).__name__, t) for m, t in models]
