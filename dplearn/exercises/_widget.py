"""The answer box of one exercise: an input, Check, the feedback, and the worked solution.

CSS classes, for styling and for the browser tests: the root carries ``dplearn-exercise``
and ``dplearn-exercise-NN-short-name``; the input ``dplearn-answer``; the buttons
``dplearn-check`` and ``dplearn-show-solution``; the feedback ``dplearn-feedback`` plus,
after a check, ``dplearn-correct`` or ``dplearn-incorrect`` (with ``dplearn-hint-<id>``
for an anticipated mistake) or ``dplearn-no-answer``; the solution area
``dplearn-solution``.

Everything in the box speaks the language set with ``dplearn.set_language`` when the box
is made or checked: its labels, buttons, options, feedback and solution.

Taught in: the "Exercises" section of every lesson notebook.
"""

from __future__ import annotations

import datetime
import html
import weakref

import ipywidgets as widgets

from dplearn import exercises
from dplearn._environment import in_app_mode
from dplearn.language import gettext as _

__all__ = ["ExerciseBox"]

# Every box on the page, so that an attempt from code opens the solution of its boxes.
_BOXES = weakref.WeakSet()


def _open_solutions(exercise_id):
    for box in list(_BOXES):
        if box.exercise.id == exercise_id:
            box.solution_button.disabled = False


exercises.on_first_attempt(_open_solutions)

_COLOURS = {
    exercises.CORRECT: "#1a7f37",
    exercises.MISTAKE: "#b35900",
    exercises.NOT_YET: "#b35900",
    exercises.NO_ANSWER: "#57606a",
    exercises.UNREADABLE: "#57606a",
}


def _feedback_classes(result):
    if result.status == exercises.CORRECT:
        return ("dplearn-feedback", "dplearn-correct")
    if result.status == exercises.NO_ANSWER:
        return ("dplearn-feedback", "dplearn-no-answer")
    if result.status == exercises.UNREADABLE:
        # Not an answer either: the box says what it could not read, nothing opens.
        return ("dplearn-feedback", "dplearn-no-answer", "dplearn-unreadable")
    classes = ("dplearn-feedback", "dplearn-incorrect")
    if result.hint:
        classes += (f"dplearn-hint-{result.hint}",)
    return classes


def _help(exercise):
    if exercise.kind == "choice":
        return _("Choose one option, then press <b>Check</b>.")
    # log1p(x) = ln(1 + x) and expm1(x) = e^x - 1 keep small x exact: lessons 10 and 11 use them.
    basics, normal = "exp, ln, sqrt, log1p, expm1", _("Phi, its inverse Phi_inv, ^ for powers")
    if exercise.kind == "function":
        names = html.escape(", ".join(exercise.parameters))
        # A formula for a count may need rounding (the smallest k such that ...).
        functions = f"{basics}, floor, ceil, min, max, {normal}"
        if in_app_mode():
            text = _("Type a formula in {names} ({functions}) and press <b>Check</b>.")
        else:
            text = _(
                "Type a formula in {names} ({functions}) and press <b>Check</b>; in JupyterLab "
                "you can also pass a Python function to <code>check(...)</code> in the cell below."
            )
        return text.format(names=names, functions=functions)
    if exercise.tolerance.whole:
        # A count: formulas would only invite a non-integer.
        return _("Type a whole number, then press <b>Check</b> or Enter.")
    return _("Type {answer} ({functions}), then press <b>Check</b> or Enter.").format(
        answer=html.escape(exercise.answer_help()), functions=f"{basics}, {normal}"
    )


# Radio labels have one fixed line height by default, so a long option would overlap the
# next one and lose its button: let each option wrap onto as many lines as it needs.
_OPTION_STYLE = (
    "<style>.dplearn-answer.widget-radio-box label {height: auto; white-space: normal; "
    "line-height: 1.35; margin-bottom: 0.3em; align-items: flex-start}</style>"
)


def _echo(answer):
    """The answer as the feedback repeats it: the text typed, or the option's letter."""
    if answer is None or (isinstance(answer, str) and not answer.strip()):
        return _("no answer")
    text = str(answer).strip()
    return text if len(text) <= 40 else text[:39] + "…"


# Enter and its text leave the browser within one keystroke; a learner takes longer than this
# to type anything new after pressing Enter.
_SAME_KEYSTROKE = datetime.timedelta(seconds=0.5)


def _sent_together(first, second):
    """True if two messages' send times fit in one keystroke, or if either is unknown."""
    if not isinstance(first, datetime.datetime) or not isinstance(second, datetime.datetime):
        return True
    return abs(second - first) <= _SAME_KEYSTROKE


class _AnswerField(widgets.Text):
    """The text input, reporting each press of Enter once, with the text it was pressed on.

    With ``continuous_update=False`` the browser sends the typed text when Enter is pressed
    and when the field loses focus, which a press of Check also causes: the text alone is
    therefore not a press. Enter sends its own message, and the text just after it, in the
    same keystroke, if the text changed since it was last sent; otherwise only the message.
    So Enter runs the check at once, and a text that arrives with that keystroke runs it
    again under the same count.

    Args:
      on_enter: called as ``on_enter(text_followed)``: False when Enter is pressed, True
        when the text that Enter sent arrives just after.
      **kwargs: the ``ipywidgets.Text`` options.
    """

    def __init__(self, on_enter, **kwargs):
        super().__init__(**kwargs)
        self._on_enter = on_enter
        # The send time of the last message if it was Enter ("unknown" when not stamped).
        self._enter_sent_at = None

    def _handle_msg(self, msg):
        data = msg["content"]["data"]
        sent_at = msg.get("header", {}).get("date", "unknown")
        enter_sent_at, self._enter_sent_at = self._enter_sent_at, None
        super()._handle_msg(msg)
        if data.get("method") == "custom" and data.get("content", {}).get("event") == "submit":
            self._enter_sent_at = sent_at
            self._on_enter(False)
        elif (
            data.get("method") == "update"
            and "value" in data.get("state", {})
            and enter_sent_at is not None
            and _sent_together(enter_sent_at, sent_at)
        ):
            self._on_enter(True)


class ExerciseBox(widgets.VBox):
    """The answer box; ``answer`` is the input, ``check_button`` runs the check."""

    def __init__(self, exercise):
        self.exercise = exercise
        if exercise.kind == "choice":
            self.answer = widgets.RadioButtons(
                options=[
                    (f"({letter}) {_(text)}", letter) for letter, text in exercise.options.items()
                ],
                value=None,
                layout=widgets.Layout(width="auto"),
            )
        else:
            placeholder = (
                f"{exercise.signature} = …" if exercise.kind == "function" else _("your answer")
            )
            # A visible label, which is also the box's accessible name.
            self.answer = _AnswerField(
                self._check_on_enter,
                placeholder=placeholder,
                description=_("Your answer"),
                style={"description_width": "initial"},
                continuous_update=False,
                layout=widgets.Layout(width="34em"),
            )
        self.answer.add_class("dplearn-answer")
        self.check_button = widgets.Button(description=_("Check"), button_style="primary")
        self.check_button.add_class("dplearn-check")
        self.check_button.on_click(lambda button: self.run_check())
        self.feedback = widgets.HTMLMath(value="")
        self.feedback.add_class("dplearn-feedback")
        self.solution_button = widgets.Button(
            description=_("Show solution"),
            disabled=not exercises.attempted(exercise.id),
            tooltip=_("The worked solution opens after your first attempt."),
        )
        self.solution_button.add_class("dplearn-show-solution")
        self.solution_button.on_click(lambda button: self.show_solution())
        self.solution_area = widgets.Output()
        self.solution_area.add_class("dplearn-solution")
        self.result = None
        #: Checks run so far: the feedback counts them, so that a second Check that
        #: gets the same message still shows that it ran.
        self.checks = 0
        guide = widgets.HTML(
            _OPTION_STYLE + f"<span style='color:#57606a'>{_help(exercise)}</span>"
        )
        super().__init__(
            [
                guide,
                widgets.HBox([self.answer, self.check_button]),
                self.feedback,
                self.solution_button,
                self.solution_area,
            ]
        )
        self.add_class("dplearn-exercise")
        self.add_class(exercise.css_class)
        _BOXES.add(self)

    def run_check(self):
        """Checks what the input holds and shows the feedback; returns the ``Result``.

        One press of Check or Enter is one call, and one more in the feedback's count.
        """
        self.checks += 1
        return self._show_check()

    def _check_on_enter(self, text_followed):
        # Enter's own text, sent just after it, replaces the check that Enter ran: one press.
        if text_followed:
            self._show_check()
        else:
            self.run_check()

    def _show_check(self):
        result = self.exercise.check(self.answer.value)
        exercises.note_attempt(result)
        count = _("(check {count}: {answer})").format(
            count=self.checks, answer=html.escape(_echo(self.answer.value))
        )
        self.feedback.value = (
            f"<span style='color:{_COLOURS[result.status]}'><b>{result._mark()}</b> "
            f"{html.escape(result.message)}</span>"
            f" <span class='dplearn-check-count' style='color:#57606a'>{count}</span>"
        )
        self.feedback._dom_classes = _feedback_classes(result)
        if result.attempted:
            self.solution_button.disabled = False
        self.result = result
        return result

    def show_solution(self):
        """Shows the worked solution, once an answer has been checked.

        In JupyterLab the solution ends with its "from code" line; in the app it does not.
        """
        if not exercises.attempted(self.exercise.id):
            return
        from IPython.display import Markdown

        self.solution_area.clear_output()
        self.solution_area.append_display_data(
            Markdown(
                _("**Worked solution.** {solution}").format(solution=self.exercise.shown_solution())
            )
        )

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        # Where widgets cannot run (a static copy of the page), say how to answer.
        bundle["text/plain"] = _(
            "Answer box of exercise {id}: run the notebook to use it, or answer from code "
            'with check("{id}", answer).'
        ).format(id=self.exercise.id)
        return bundle
