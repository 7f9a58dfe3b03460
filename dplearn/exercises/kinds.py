"""The kinds of exercise, and what a bank builds them with.

A bank (``lessonNN.py``) lists its exercises with the constructors here: ``number`` (a
numeric answer, text such as ``ln(3)/2`` read safely by ``_expressions``), ``choice`` (an
option's letter) and ``function`` (a Python callable, or a formula typed as text, run on
several inputs, edge cases included, against the reference); each with its ``mistake``s
(a wrong computation with its own hint) and a ``Tolerance`` (``relative``, ``absolute``,
``exact``). Checking an answer gives a ``Result``. Nothing here keeps state: finding the
banks and the kernel's record of attempts are in ``registry``.

A bank's words stay English in its exercises (the English is their identity, and what the
tests and the grader read); they are translated (``dplearn.language``) where a learner
reads them: the feedback of ``check``, the options of the answer box, the worked solution.
The words a learner reads, by attribute: ``Exercise.title``, ``question``, ``solution``,
``advice`` and ``from_code``; ``ChoiceExercise.options`` (its values) and ``praise``;
``Mistake.message``; ``Tolerance.unit``.

Taught in: the "Exercises" section of every lesson notebook.
"""

from __future__ import annotations

import math
import numbers
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from dplearn._environment import in_app_mode
from dplearn.exercises._expressions import (
    NotReadable,
    OutsideDomain,
    decimal_comma_hint,
    fold_wide_forms,
    read_function,
    read_number,
)
from dplearn.language import N_
from dplearn.language import gettext as _

__all__ = [
    "Exercise",
    "NumberExercise",
    "ChoiceExercise",
    "FunctionExercise",
    "Mistake",
    "Result",
    "Tolerance",
    "relative",
    "absolute",
    "exact",
    "whole_number",
    "number",
    "choice",
    "function",
    "mistake",
    "KINDS",
    "CORRECT",
    "MISTAKE",
    "NOT_YET",
    "NO_ANSWER",
    "UNREADABLE",
]

_ID_PATTERN = re.compile(r"^(\d\d)\.[a-z0-9]+(?:-[a-z0-9]+)*$")
_HINT_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

#: The status of a checked answer (``Result.status``).
NO_ANSWER, CORRECT, MISTAKE, NOT_YET = "no-answer", "correct", "mistake", "not-yet"
#: Something was written, but it is not an answer (unreadable text, a letter that is no
#: option): the grader says what was written, not "no answer".
UNREADABLE = "unreadable"
#: How long a quoted answer may be in a verdict.
_QUOTED = 24
#: The mark before a message, by status (translated where shown).
_MARKS = {
    CORRECT: N_("✔ Correct."),
    MISTAKE: N_("✘ Not yet."),
    NOT_YET: N_("✘ Not yet."),
    NO_ANSWER: "…",
    UNREADABLE: "?",
}

#: The kinds of answer an exercise takes.
KINDS = ("number", "choice", "function")


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Result:
    """What a check says about one answer.

    Attributes:
      exercise_id: the exercise checked.
      status: "correct", "mistake" (an anticipated one, named by ``hint``), "not-yet"
        (wrong, no anticipated mistake), "unreadable" (written, but not an answer: text
        the reader could not read, a letter that is no option) or "no-answer" (nothing).
      message: what the learner reads, in the language set when the answer was checked.
      hint: the id of the anticipated mistake the answer matched, else None.
      recorded: the answer as the grader re-checks it (JSON-ready), None if there is none.
      verdict_note: the verdict of an unreadable answer, such as "not an option: z" or
        "could not read" (English, as ``verdict``).
    """

    exercise_id: str
    status: str
    message: str
    hint: str | None = None
    recorded: object = None
    verdict_note: str = ""

    @property
    def correct(self):
        """True when the answer is right within the exercise's tolerance."""
        return self.status == CORRECT

    @property
    def attempted(self):
        """True for a readable answer (right or wrong): it opens the worked solution."""
        return self.status not in (NO_ANSWER, UNREADABLE)

    @property
    def verdict(self):
        """A few words for a table: correct, not yet, no answer, or what is unreadable.

        What is unreadable is named briefly, such as "not an option: z" or "could not read".
        The words stay English: they are the grader's, for a teacher's table and its score.
        """
        if self.status == UNREADABLE:
            return self.verdict_note or "could not read"
        return {CORRECT: "correct", NO_ANSWER: "no answer"}.get(self.status, "not yet")

    def _mark(self):
        return _(_MARKS[self.status])

    def __str__(self):
        return f"{self.exercise_id}: {self._mark()} {self.message}"

    def _ipython_display_(self):
        # In Voilà (app mode) the page shows the answer box, not the answer cell under
        # it: "No answer yet" there is noise. Anything else, and everything in JupyterLab
        # or a console, is shown.
        if self.status == NO_ANSWER and in_app_mode():
            return
        from IPython.display import display

        display({"text/markdown": self._repr_markdown_(), "text/plain": str(self)}, raw=True)

    def _repr_markdown_(self):
        if self.status == NO_ANSWER:
            # Quiet: every answer cell shows this until the learner answers from code.
            return f"<span style='color:#57606a'>{self.exercise_id}: {self.message}</span>"
        # Words only in the mark and the message, both in the learner's language.
        return f"**{self.exercise_id} · {self._mark()}** {self.message}"


# ------------------------------------------------------------------------- tolerances


#: How close to an anticipated slip that is not a whole number an answer must be to get
#: its hint, when the answer is a whole number: two decimals, never a whole number away.
SLIP_WIDTH = 0.05


@dataclass(frozen=True)
class Tolerance:
    """How close a number must be to count as equal: relative, absolute, or a whole number.

    A value v matches a target t when |v - t| <= max(relative * |t|, absolute); two
    infinities of the same sign match. With ``whole``, the answer is a whole number: a
    whole-number target (the reference, or a slip such as "one more") is matched
    exactly, and a slip that is not a whole number (the real root 12.94 of an inequality
    whose answer, 13, is its rounding up) within ±SLIP_WIDTH, so that its hint does not
    need all its digits typed.
    """

    relative: float = 0.0
    absolute: float = 0.0
    whole: bool = False
    #: What a whole-number answer counts ("epochs"), for the message on a fraction.
    unit: str = ""

    def accepts(self, value, target):
        """True when value lies within this tolerance of target."""
        value, target = float(value), float(target)
        if math.isnan(value) or math.isnan(target):
            return False
        if math.isinf(value) or math.isinf(target):
            return value == target
        if self.whole:
            if target == math.floor(target):
                return value == target
            return abs(value - target) <= SLIP_WIDTH
        return abs(value - target) <= max(self.relative * abs(target), self.absolute)

    def describe(self):
        """The tolerance in words, as the feedback states it ("Right, <this>.")."""
        if self.whole:
            return _("the exact whole number")
        if self.relative >= 1e-3:
            share = _("{percent:g} % of the expected value").format(percent=self.relative * 100)
        elif self.relative:
            share = _("a relative error of {relative:.0e} of the expected value").format(
                relative=self.relative
            )
        else:
            share = ""
        amount = f"±{self.absolute:g}" if self.absolute else ""
        if share and amount:
            return _("within {share} or {amount}").format(share=share, amount=amount)
        return _("within {tolerance}").format(tolerance=share or amount)


def relative(fraction, absolute=0.0):
    """Tolerance of ``fraction`` of the expected value (0.005 is 0.5 %)."""
    return Tolerance(relative=fraction, absolute=absolute)


def absolute(amount):
    """Tolerance of ± ``amount``."""
    return Tolerance(absolute=amount)


def whole_number(unit=""):
    """The tolerance of an answer that is a whole number: exactly that number.

    See ``Tolerance``.

    Args:
      unit: what the number counts, such as "epochs".
    """
    return Tolerance(whole=True, unit=unit)


#: The same tolerance under its older, shorter name.
exact = whole_number


# --------------------------------------------------------------------------- mistakes


@dataclass(frozen=True)
class Mistake:
    """An anticipated wrong computation and the hint it gets.

    Attributes:
      id: short name, lower-case words joined by "-" (it names the CSS class
        ``dplearn-hint-<id>``).
      message: the hint: it names the slip without giving the answer away (English;
        translated when the feedback shows it).
      compute: for a number exercise, a function of no argument returning the wrong
        number; for a function exercise, the wrong function itself; None for a choice.
      source: for a function exercise, the wrong function as a formula a learner could
        type (what tests put into the answer boxes and answer cells).
      option: for a choice, the letter of the wrong option.
    """

    id: str
    message: str
    compute: Callable | None = None
    source: str | None = None
    option: str | None = None

    def answer(self):
        """An answer that triggers this hint."""
        if self.option is not None:
            return self.option
        if self.source is not None:
            return self.source
        return float(self.compute())


def mistake(id, message, compute=None, source=None):
    """An anticipated mistake of a number or function exercise (see ``Mistake``)."""
    return Mistake(id, message, compute, source)


# -------------------------------------------------------------------------- exercises


def _integer(value):
    return isinstance(value, numbers.Integral | np.integer) and not isinstance(
        value, bool | np.bool_
    )


def _decimal_comma(answer):
    """The text "1000,185" when the answer is Python's reading of ``1000,185``, else None.

    ``answer = 1000,185`` in a cell makes the pair (1000, 185): two whole numbers, the
    second non-negative (its digits were the decimals). A pair with a float in it, such
    as (3.5, 2.0), is two numbers meant as two.
    """
    if not (isinstance(answer, tuple) and len(answer) == 2):
        return None
    whole, decimals = answer
    if not (_integer(whole) and _integer(decimals)) or decimals < 0:
        return None
    return f"{int(whole)},{int(decimals)}"


class _NotANumber(NamedTuple):
    """Why an answer is not one number, said of the answer and of what a function returned."""

    sentence: str  # "Expected one number, got 2 of them."
    returned: str  # "returned not one number, 2 of them"


def _as_number(answer):
    """(value, None) for one real number, else (None, a ``_NotANumber`` saying why).

    Never raises: a typed text is read by ``read_number``, which refuses what it cannot
    read (``NotReadable``); anything else is looked at, not run.
    """
    if answer is None:
        return None, _NotANumber(_("No answer yet."), _("returned no answer yet"))
    if isinstance(answer, str):
        try:
            return read_number(answer), None
        except NotReadable as problem:
            # Text a function returned: its reason reads "ln needs a positive number, -1".
            reason = str(problem).replace("expected", "not").replace("got ", "")
            if isinstance(problem, OutsideDomain):  # "ln needs a positive number"
                return None, _NotANumber(
                    _("That cannot be computed: {reason}.").format(reason=problem),
                    _("returned that cannot be computed: {reason}").format(reason=reason),
                )
            return None, _NotANumber(
                _("I could not read that: {reason}.").format(reason=problem),
                _("returned I could not read that: {reason}").format(reason=reason),
            )
    if isinstance(answer, bool | np.bool_):
        return None, _NotANumber(
            _("That is True or False, not a number."),
            _("returned that is True or False, not a number"),
        )
    if isinstance(answer, numbers.Real | np.number):
        if isinstance(answer, complex | np.complexfloating):
            return None, _NotANumber(
                _("That is a complex number."), _("returned that is a complex number")
            )
        return float(answer), None
    try:
        array = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        kind = type(answer).__name__
        return None, _NotANumber(
            _("Expected a number, got {type}.").format(type=kind),
            _("returned not a number, {type}").format(type=kind),
        )
    if array.size != 1:
        return None, _NotANumber(
            _("Expected one number, got {count} of them.").format(count=array.size),
            _("returned not one number, {count} of them").format(count=array.size),
        )
    return float(array.reshape(())), None


@dataclass(frozen=True)
class Exercise:
    """What every exercise has; see NumberExercise, ChoiceExercise and FunctionExercise.

    The words (title, question, solution, advice, from_code) stay English here; what shows
    them translates them (``shown_solution``, the feedback of ``check``).

    Attributes:
      id: "NN.short-name", NN the lesson number.
      title: a few words, the heading of the exercise in the notebook.
      question: the question in markdown ($…$ for formulas), as the notebook shows it.
      solution: the worked solution in markdown: a short derivation.
      mistakes: the anticipated mistakes, each with its own hint.
      advice: said when a wrong answer matches no anticipated mistake.
      from_code: optional, one line in markdown after the solution for a learner who can
        run code ("`privacy_loss.gaussian(sigma).delta(epsilon)` computes it"). Shown in
        JupyterLab only: in the app (Voilà) solutions speak in words and formulas.
    """

    id: str
    title: str
    question: str
    solution: str
    mistakes: tuple = ()
    advice: str = ""
    from_code: str = ""
    kind = "exercise"
    #: The options of a choice (letter -> text); None for the other kinds.
    options = None

    def __post_init__(self):
        if not _ID_PATTERN.match(self.id):
            raise ValueError(f"exercise id must look like '02.delta-two', got {self.id!r}")
        object.__setattr__(self, "mistakes", tuple(self.mistakes))
        ids = [item.id for item in self.mistakes]
        for hint in ids:
            if not _HINT_PATTERN.match(hint):
                raise ValueError(f"{self.id}: mistake id must be lower-case words, got {hint!r}")
        if len(set(ids)) != len(ids):
            raise ValueError(f"{self.id}: two mistakes share an id: {ids}")
        if len(ids) < 2:
            raise ValueError(f"{self.id}: anticipate at least two mistakes, got {len(ids)}")

    @property
    def lesson(self):
        """The lesson number, from the id."""
        return int(self.id[:2])

    @property
    def css_class(self):
        """``dplearn-exercise-NN-short-name``, the class of this exercise's answer box."""
        return "dplearn-exercise-" + self.id.replace(".", "-")

    def shown_solution(self, app_mode=None):
        """The worked solution as the learner reads it (markdown, in the learner's language).

        In JupyterLab it is followed by the ``from_code`` line; in the app (Voilà) it is not.

        Args:
          app_mode: True for the app, False for JupyterLab; None asks where this kernel runs.
        """
        if app_mode is None:
            app_mode = in_app_mode()
        if not self.from_code or app_mode:
            return _(self.solution)
        return _("{solution}\n\n*From code:* {line}").format(
            solution=_(self.solution), line=_(self.from_code)
        )

    def reference(self):
        """An answer that ``check`` accepts."""
        raise NotImplementedError

    def check(self, answer):
        """Checks an answer; never raises for a bad answer. Returns a ``Result``."""
        raise NotImplementedError

    def check_recorded(self, recorded):
        """Re-checks an answer as ``Result.recorded`` holds it (the grader's side)."""
        return self.check(recorded)

    def answer_help(self):
        """What the answer box says to type."""
        raise NotImplementedError

    def code_help(self, translate=_):
        """What the answer cell says to put in place of None (Python, not box text).

        Args:
          translate: ``gettext`` by default; ``N_`` keeps the English (the notebook's
            answer cell is code, and stays English in every edition).
        """
        raise NotImplementedError

    def widget(self):
        """The answer box (ipywidgets): input, Check, feedback, Show solution."""
        from dplearn.exercises._widget import ExerciseBox

        return ExerciseBox(self)

    def _result(self, status, message, hint=None, recorded=None):
        return Result(self.id, status, message, hint, recorded)

    def _unreadable(self, message, answer, note="could not read"):
        """The result for something written that is not an answer.

        The grader re-reads what was written (as text) and reports it as note.
        """
        written = answer if isinstance(answer, str) else repr(answer)
        return Result(self.id, UNREADABLE, message, None, written[:400], note)

    def _advice(self):
        """The advice, after a space, to follow the message of a wrong answer ("" if none)."""
        return f" {_(self.advice)}" if self.advice else ""

    def _wrong(self, hint_id, recorded):
        for item in self.mistakes:
            if item.id == hint_id:
                return self._result(MISTAKE, _(item.message), item.id, recorded)
        raise KeyError(hint_id)


@dataclass(frozen=True)
class NumberExercise(Exercise):
    """An exercise answered by one number, within a stated tolerance.

    Attributes:
      compute: function of no argument returning the reference, computed with the package.
      tolerance: a ``Tolerance`` (``relative(0.005)``, ``absolute(0.001)``, ``whole_number()``).
    """

    compute: Callable = None
    tolerance: Tolerance = field(default_factory=lambda: relative(0.005))
    kind = "number"

    def reference(self):
        """The number ``compute`` returns, as a float."""
        return float(self.compute())

    def answer_help(self):
        """What the answer box says to type: a whole number, or a number or a formula."""
        if self.tolerance.whole:
            return _("a whole number")
        return _("a number, or a formula such as ln(3)/2 or 1e-5")

    def code_help(self, translate=_):
        """What the answer cell says to put in place of None: a number, or a formula as text.

        Args:
          translate: see ``Exercise.code_help``.
        """
        if self.tolerance.whole:
            return translate(N_("a whole number"))
        return translate(N_('a number, e.g. 0.25, np.log(3) / 2 or "ln(3)/2"'))

    def check(self, answer):
        """Checks one number, typed as text or given from code; returns a ``Result``.

        A number within the tolerance of the reference is correct; one within the tolerance of
        an anticipated mistake gets that mistake's hint. Text with a decimal comma, or text that
        is no number, is unreadable and said so.
        """
        written = _decimal_comma(answer)
        if written is not None:
            # Recorded as the text it was, so the grader re-reads it to the same hint.
            hint = decimal_comma_hint(written)
            message = _("Python reads {written} as two numbers: {hint}.")
            return self._unreadable(message.format(written=written, hint=hint), written)
        value, problem = _as_number(answer)
        if problem is not None:
            if answer is None or (isinstance(answer, str) and not answer.strip()):
                return self._result(NO_ANSWER, problem.sentence)
            return self._unreadable(problem.sentence, answer)
        recorded = answer if isinstance(answer, str) else value
        if math.isnan(value):
            return self._result(
                NO_ANSWER,
                _(
                    "That is not a number (NaN): a computation such as 0/0 or inf − inf has "
                    "no value."
                ),
            )
        reference = self.reference()
        if self.tolerance.accepts(value, reference):
            message = _("Right, {tolerance}.").format(tolerance=self.tolerance.describe())
            return self._result(CORRECT, message, None, recorded)
        for item in self.mistakes:
            if self.tolerance.accepts(value, float(item.compute())):
                return self._wrong(item.id, recorded)
        message = self._off_by(value, reference) + self._advice()
        return self._result(NOT_YET, message, None, recorded)

    def _off_by(self, value, reference):
        """What a wrong number that is no anticipated slip gets, in plain words."""
        if math.isinf(value):
            return _(
                "That is infinite (a division by zero, or a number beyond about 1.8e308, "
                "the largest a computer holds): the answer is a finite number."
            )
        if abs(value) > 1e6 * max(1.0, abs(reference)):
            return _(
                "That is about {value:.3g}, far too large in size for this answer: check "
                "the powers of ten and the brackets."
            ).format(value=value)
        if self.tolerance.whole:
            return self._not_the_whole_number(value)
        return _("That is not {tolerance}, and it is none of the usual slips.").format(
            tolerance=self.tolerance.describe()
        )

    def _not_the_whole_number(self, value):
        """What a wrong whole-number answer gets: a fraction, or a count none of the slips."""
        unit = _(self.tolerance.unit) if self.tolerance.unit else ""
        if value != math.floor(value):
            if unit:
                message = _(
                    "{value:g} is not a whole number: a whole number of {unit} is asked for."
                )
            else:
                message = _("{value:g} is not a whole number: a whole number is asked for.")
        elif unit:
            message = _(
                "That is not the whole number of {unit} asked for, and it is none of the "
                "usual slips."
            )
        else:
            message = _(
                "That is not the whole number asked for, and it is none of the usual slips."
            )
        return message.format(value=value, unit=unit)


@dataclass(frozen=True)
class ChoiceExercise(Exercise):
    """An exercise answered by choosing one option; each wrong option has its own hint.

    Attributes:
      options: letter -> option text, in the order shown ({"a": ..., "b": ...}).
      answer: the letter of the right option.
      praise: said with "correct" (why the right option is right, in one sentence).
    """

    options: dict = field(default_factory=dict)
    answer: str = ""
    praise: str = ""
    kind = "choice"

    def __post_init__(self):
        super().__post_init__()
        if self.answer not in self.options:
            raise ValueError(f"{self.id}: answer {self.answer!r} is not one of the options")
        wrong = {item.option for item in self.mistakes}
        expected = set(self.options) - {self.answer}
        if wrong != expected:
            raise ValueError(f"{self.id}: every wrong option needs one hint: {sorted(expected)}")

    def reference(self):
        """The letter of the right option."""
        return self.answer

    def answer_help(self):
        """What the answer box says to type: a letter, with the first option's as an example."""
        return self.code_help()

    def code_help(self, translate=_):
        """What the answer cell says to put in place of None: the same as ``answer_help``.

        Args:
          translate: see ``Exercise.code_help``.
        """
        return translate(N_('the letter of your choice, e.g. "{letter}"')).format(
            letter=next(iter(self.options))
        )

    def _letter(self, answer):
        """The option's letter that answer names (a letter, or an option's text), else None.

        Full-width letters and brackets, as Chinese input methods type them, are read as
        ASCII ("（Ｂ）" is "b"); an option's text may be typed in English or as the box shows it.
        """
        if isinstance(answer, str):
            text = fold_wide_forms(answer).strip("()").strip()
            if text.lower() in self.options:
                return text.lower()
            for letter, option in self.options.items():
                shown = {option, _(option)}
                if text.casefold() in {fold_wide_forms(item).casefold() for item in shown}:
                    return letter
        return None

    def check(self, answer):
        """Checks a choice, given as a letter or as the option's full text; returns a ``Result``.

        A wrong option gets the hint of its mistake; anything that is no option is unreadable.
        """
        if answer is None or (isinstance(answer, str) and not answer.strip()):
            return self._result(NO_ANSWER, _("No option chosen yet."))
        letter = self._letter(answer)
        if letter is None:
            letters = ", ".join(f'"{key}"' for key in self.options)
            written = answer.strip() if isinstance(answer, str) else repr(answer)
            shown = written if len(written) <= _QUOTED else written[: _QUOTED - 1] + "…"
            message = _("{answer} is not an option: answer with one of the letters {letters}.")
            return self._unreadable(
                message.format(answer=repr(shown), letters=letters),
                written,
                f"not an option: {shown}",
            )
        if letter == self.answer:
            praise = f" {_(self.praise)}" if self.praise else ""
            message = _("({letter}) is right.").format(letter=letter) + praise
            return self._result(CORRECT, message, None, letter)
        for item in self.mistakes:
            if item.option == letter:
                return self._wrong(item.id, letter)
        raise AssertionError("unreachable: every wrong option has a mistake")


def choice(id, title, question, options, answer, hints, solution, praise="", from_code=""):
    """A choice exercise; ``hints`` maps each wrong letter to (hint id, message)."""
    mistakes = [
        Mistake(hint_id, message, option=letter) for letter, (hint_id, message) in hints.items()
    ]
    return ChoiceExercise(
        id,
        title,
        question,
        solution,
        mistakes,
        from_code=from_code,
        options=dict(options),
        answer=answer,
        praise=praise,
    )


def _function_output(function, case):
    """The function's value on one case as a float, or a short text saying what went wrong."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            value = function(*case)
        value, problem = _as_number(value)
    except Exception as error:  # a learner's function may raise anything: report it
        return _("raised {error}: {message}").format(
            error=type(error).__name__, message=str(error)[:120]
        )
    if problem is not None:
        return problem.returned
    return value


@dataclass(frozen=True)
class FunctionExercise(Exercise):
    """An exercise answered by a function, run on several inputs against the reference.

    Attributes:
      parameters: the names of the function's arguments, in order.
      compute: the reference function, computed with the package.
      source: the reference as a formula in the parameters (tests type it into the box).
      cases: argument tuples the answer is run on; include the edge cases.
      tolerance: per case (default: relative 1e-6, absolute 1e-12).
    """

    parameters: tuple = ()
    compute: Callable = None
    source: str = ""
    cases: tuple = ()
    tolerance: Tolerance = field(default_factory=lambda: Tolerance(1e-6, 1e-12))
    kind = "function"

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "parameters", tuple(self.parameters))
        object.__setattr__(self, "cases", tuple(tuple(case) for case in self.cases))
        if len(self.cases) < 3:
            raise ValueError(f"{self.id}: run answers on at least three cases")

    @property
    def signature(self):
        """``f(epsilon, sigma)``, as the box shows it."""
        return f"f({', '.join(self.parameters)})"

    def reference(self):
        """The reference function, ``compute``."""
        return self.compute

    def reference_outputs(self):
        """The reference's value on every case."""
        return [float(self.compute(*case)) for case in self.cases]

    def answer_help(self):
        """What the answer box says to type: a function of the parameters, or a formula."""
        return _("a function of ({parameters}), or a formula in them as text").format(
            parameters=", ".join(self.parameters)
        )

    def code_help(self, translate=_):
        """What the answer cell says to put in place of None: a function, or a formula as text.

        Args:
          translate: see ``Exercise.code_help``.
        """
        return translate(N_("a function of ({parameters}) or a formula in them as text")).format(
            parameters=", ".join(self.parameters)
        )

    def _describe_case(self, case):
        return ", ".join(
            f"{name} = {value:g}" for name, value in zip(self.parameters, case, strict=True)
        )

    def check(self, answer):
        """Checks a function, or a formula as text, on every case; returns a ``Result``.

        Text is read into a function of ``parameters``; its values on ``cases`` are then judged
        by ``judge_outputs``.
        """
        if answer is None or (isinstance(answer, str) and not answer.strip()):
            return self._result(NO_ANSWER, _("No function yet."))
        if isinstance(answer, str):
            try:
                answer = read_function(answer, self.parameters)
            except NotReadable as problem:
                message = _("I could not read that: {reason}.").format(reason=problem)
                return self._unreadable(message, answer)
        if not callable(answer):
            return self._not_a_function(type(answer).__name__)
        outputs = [_function_output(answer, case) for case in self.cases]
        return self.judge_outputs(outputs)

    def _not_a_function(self, type_name):
        return Result(
            self.id,
            UNREADABLE,
            _("This exercise asks for a function {signature}, got {type}.").format(
                signature=self.signature, type=type_name
            ),
            None,
            {"not a function": type_name},
            "not a function",
        )

    def check_recorded(self, recorded):
        """Re-checks an answer as ``Result.recorded`` holds it (the grader's side).

        A recorded function is its outputs on ``cases``: they are judged again when the cases
        are the exercise's own; text, or nothing, is read and checked again.
        """
        if recorded is None or isinstance(recorded, str):
            # Nothing, or what was written and could not be read: read it again.
            return self.check(recorded)
        if isinstance(recorded, dict) and "not a function" in recorded:
            return self._not_a_function(str(recorded["not a function"]))
        if not isinstance(recorded, dict) or recorded.get("cases") != [
            list(case) for case in self.cases
        ]:
            return self._result(NO_ANSWER, _("The answer was recorded on other inputs."))
        return self.judge_outputs(recorded["outputs"])

    def judge_outputs(self, outputs):
        """Checks the answer's values on ``cases`` (a float, or a text saying what failed)."""
        recorded = {"cases": [list(case) for case in self.cases], "outputs": list(outputs)}

        def matches(targets):
            return all(
                isinstance(output, float) and self.tolerance.accepts(output, target)
                for output, target in zip(outputs, targets, strict=True)
            )

        if matches(self.reference_outputs()):
            message = _("Right on all {count} inputs, edge cases included ({tolerance}).")
            return self._result(
                CORRECT,
                message.format(count=len(self.cases), tolerance=self.tolerance.describe()),
                None,
                recorded,
            )
        for item in self.mistakes:
            if matches([float(item.compute(*case)) for case in self.cases]):
                return self._wrong(item.id, recorded)
        reference = self.reference_outputs()
        for case, output, target in zip(self.cases, outputs, reference, strict=True):
            if not (isinstance(output, float) and self.tolerance.accepts(output, target)):
                if isinstance(output, float):
                    said = _("gives {output:.6g}, which is not {tolerance}").format(
                        output=output, tolerance=self.tolerance.describe()
                    )
                else:
                    said = output
                message = _("At {case} your function {outcome}.").format(
                    case=self._describe_case(case), outcome=said
                )
                return self._result(NOT_YET, message + self._advice(), None, recorded)
        raise AssertionError("unreachable: some case differs")


def number(
    id, title, question, compute, mistakes, solution, tolerance=None, advice="", from_code=""
):
    """A number exercise (see ``NumberExercise``); tolerance defaults to 0.5 %."""
    return NumberExercise(
        id,
        title,
        question,
        solution,
        tuple(mistakes),
        advice,
        from_code,
        compute=compute,
        tolerance=tolerance or relative(0.005),
    )


def function(
    id,
    title,
    question,
    parameters,
    compute,
    source,
    cases,
    mistakes,
    solution,
    advice="",
    tolerance=None,
    from_code="",
):
    """A function exercise (see ``FunctionExercise``)."""
    return FunctionExercise(
        id,
        title,
        question,
        solution,
        tuple(mistakes),
        advice,
        from_code,
        parameters=tuple(parameters),
        compute=compute,
        source=source,
        cases=tuple(cases),
        tolerance=tolerance or Tolerance(1e-6, 1e-12),
    )
