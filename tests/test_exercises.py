"""The exercise banks and their checker, in this process (no kernel, no browser).

For every exercise of every bank: the reference is accepted; each anticipated mistake's
answer gets exactly its own hint; far-off answers, junk, None and NaN are not correct and
never raise; every wrong option of a choice is incorrect; a constant function fails a
function exercise; the reference and the mistakes are told apart under the tolerance.
Then the answer box, the solution gate, the grader's side channel, the safe formula
reader, and the Exercises sections of the notebooks (as the banks write them, with no
reference value or solution text inside).
"""

import importlib
import itertools
import json
import math
import pathlib
import re

import mpmath
import nbformat
import numpy as np
import pytest

from dplearn import exercises
from dplearn.exercises import _expressions, notebook
from tests import oracle

ROOT = pathlib.Path(__file__).resolve().parents[1]
# The lessons (NN-*.ipynb), not the contents page.
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
ALL = exercises.load_all()
IDS = list(ALL)
BY_KIND = {kind: [key for key in IDS if ALL[key].kind == kind] for kind in exercises.KINDS}
JUNK = [
    None,
    "",
    "   ",
    "abc",
    "1,5",
    "__import__('os').system('true')",
    "open('x').read()",
    "x.y",
    "[1, 2]",
    "'text'",
    "1 +",
    float("nan"),
    np.nan,
    [],
    [1.0, 2.0],
    {},
    object(),
    True,
    1 + 2j,
]


@pytest.fixture(autouse=True)
def fresh_attempts():
    """Each test starts as a new kernel would: nothing attempted."""
    exercises._ATTEMPTED.clear()
    yield
    exercises._ATTEMPTED.clear()


def lesson_notebook(lesson):
    return next((path for path in NOTEBOOKS if path.name.startswith(f"{lesson:02d}-")), None)


# ------------------------------------------------------------------ the collection


def test_every_lesson_with_a_notebook_has_at_least_three_exercises():
    lessons = {notebook.lesson_of(path) for path in NOTEBOOKS}
    counts = {
        lesson: sum(1 for item in ALL.values() if item.lesson == lesson) for lesson in lessons
    }
    banked = {lesson: count for lesson, count in counts.items() if count}
    assert banked, "no exercise bank found"
    assert all(count >= 3 for count in banked.values()), banked


def test_the_collection_has_all_three_kinds():
    assert all(BY_KIND[kind] for kind in exercises.KINDS), {k: len(v) for k, v in BY_KIND.items()}


@pytest.mark.parametrize("exercise_id", IDS)
def test_id_kind_and_texts(exercise_id):
    exercise = ALL[exercise_id]
    assert re.fullmatch(r"\d\d\.[a-z0-9]+(-[a-z0-9]+)*", exercise.id)
    assert exercise.kind in exercises.KINDS
    assert exercise.title and exercise.question
    # A worked solution reads as a derivation: formulas, more than a number.
    assert "$" in exercise.solution and len(exercise.solution) > 200, exercise.solution
    assert len(exercise.mistakes) >= 2
    assert exercise.css_class == "dplearn-exercise-" + exercise_id.replace(".", "-")


def test_unknown_id_is_a_clear_error():
    with pytest.raises(ValueError, match="02.delta-tow"):
        exercises.check("02.delta-tow", 1.0)


# --------------------------------------------------------------- references, mistakes


@pytest.mark.parametrize("exercise_id", IDS)
def test_reference_is_correct(exercise_id):
    exercise = ALL[exercise_id]
    result = exercise.check(exercise.reference())
    assert result.correct and result.hint is None, result
    if exercise.kind == "function":
        # The formula a learner would type agrees with the package's computation.
        assert exercise.check(exercise.source).correct, exercise.source
        outputs = exercise.reference_outputs()
        assert not any(math.isnan(value) for value in outputs), outputs
    if exercise.kind == "number":
        assert not math.isnan(exercise.reference())


@pytest.mark.parametrize("exercise_id", IDS)
def test_each_mistake_gets_exactly_its_hint(exercise_id):
    exercise = ALL[exercise_id]
    for item in exercise.mistakes:
        result = exercise.check(item.answer())
        assert not result.correct, (item.id, result)
        assert result.hint == item.id, (item.id, result)
        assert result.message == item.message
        if exercise.kind == "function":
            # The typed formula and the wrong computation are the same mistake.
            assert exercise.check(item.compute).hint == item.id


def _number_value(exercise, answer):
    return exercise.reference() if answer is None else float(answer)


@pytest.mark.parametrize("exercise_id", BY_KIND["number"])
def test_reference_and_mistakes_are_told_apart(exercise_id):
    exercise = ALL[exercise_id]
    values = [exercise.reference()] + [float(item.compute()) for item in exercise.mistakes]
    for first, a in enumerate(values):
        for b in values[first + 1 :]:
            assert not exercise.tolerance.accepts(a, b) and not exercise.tolerance.accepts(b, a), (
                values
            )


@pytest.mark.parametrize("exercise_id", BY_KIND["function"])
def test_function_mistakes_differ_from_the_reference(exercise_id):
    exercise = ALL[exercise_id]
    outputs = [exercise.reference_outputs()] + [
        [float(item.compute(*case)) for case in exercise.cases] for item in exercise.mistakes
    ]
    for first, a in enumerate(outputs):
        for b in outputs[first + 1 :]:
            assert not all(exercise.tolerance.accepts(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("exercise_id", IDS)
def test_hints_do_not_give_the_answer_away(exercise_id):
    exercise = ALL[exercise_id]
    if exercise.kind != "number":
        return
    value = exercise.reference()
    for item in exercise.mistakes:
        for shown in {f"{value:.3g}", f"{value:.4g}"}:
            if len(shown.replace(".", "").strip("0-")) >= 2:
                assert shown not in item.message, (item.id, shown)


# ------------------------------------------------------------------ bad answers


@pytest.mark.parametrize("exercise_id", IDS)
def test_junk_none_and_nan_are_not_correct_and_do_not_raise(exercise_id):
    exercise = ALL[exercise_id]
    for answer in JUNK:
        result = exercise.check(answer)
        assert not result.correct, (answer, result)
        assert result.status in ("no-answer", "not-yet", "unreadable"), (answer, result)
        assert result.message
    for answer in (None, ""):
        assert exercise.check(answer).status == "no-answer"
    # NaN from code: no answer for a number ("did a computation fail?"), no option else.
    assert exercise.check(float("nan")).status in ("no-answer", "unreadable")


@pytest.mark.parametrize("exercise_id", BY_KIND["number"])
def test_far_off_numbers_are_not_yet(exercise_id):
    exercise = ALL[exercise_id]
    value = exercise.reference()
    for far in (value * 1000 + 7.0, -abs(value) - 3.0, 1e300, -1e300, math.inf, -math.inf):
        result = exercise.check(far)
        assert result.status == "not-yet", (far, result)
        if math.isinf(far):  # plain words for infinity and for sizes no answer has
            assert "infinite" in result.message, result.message
        elif abs(far) == 1e300:
            assert "far too large" in result.message, result.message
        elif not exercise.tolerance.whole:
            assert exercise.tolerance.describe() in result.message
        # A far-off answer typed as text is read as a number, too.
        assert exercise.check(repr(far) if math.isfinite(far) else "-inf").status == "not-yet"


@pytest.mark.parametrize("exercise_id", BY_KIND["number"])
def test_numbers_are_read_from_text_and_numpy(exercise_id):
    exercise = ALL[exercise_id]
    value = exercise.reference()
    for answer in (f"{value!r}", np.float64(value), np.array([value]), f"  {value!r} "):
        assert exercise.check(answer).correct, answer


@pytest.mark.parametrize("exercise_id", BY_KIND["choice"])
def test_every_wrong_option_is_incorrect_and_letters_are_forgiving(exercise_id):
    exercise = ALL[exercise_id]
    assert len(exercise.options) >= 3
    for letter, text in exercise.options.items():
        result = exercise.check(letter)
        assert result.correct == (letter == exercise.answer)
        assert exercise.check(f"({letter.upper()})").status == result.status
        assert exercise.check(text).status == result.status
        if letter != exercise.answer:
            assert result.hint is not None
    assert exercise.check("z").verdict == "not an option: z"
    assert exercise.check(3).verdict == "not an option: 3"


@pytest.mark.parametrize("exercise_id", BY_KIND["function"])
def test_constant_and_broken_functions_fail(exercise_id):
    exercise = ALL[exercise_id]
    outputs = exercise.reference_outputs()
    finite = [value for value in outputs if math.isfinite(value)]
    for constant in (0.0, 0.5, 1.0, float(np.median(finite)), outputs[0]):
        result = exercise.check(lambda *args, constant=constant: constant)
        assert result.status == "not-yet", (constant, result)
        assert exercise.check(f"{constant!r}").status != "correct"
    arity = len(exercise.parameters)
    broken = [
        lambda *args: 1 / 0,
        lambda *args: float("nan"),
        lambda *args: "text",
        lambda *args: [1.0, 2.0],
        lambda *args: None,
        lambda: 1.0,  # too few arguments
        lambda *args: exercise.compute(*args) * 1.01,
    ]
    for candidate in broken:
        result = exercise.check(candidate)
        assert result.status == "not-yet", result
        assert result.message.startswith("At "), result.message
    assert exercise.check(1.5).verdict == "not a function"
    wrong_lambda = "lambda " + ", ".join(f"x{i}" for i in range(arity + 1)) + ": 1"
    assert exercise.check(wrong_lambda).verdict == "could not read"


# ------------------------------------------------------------- solutions and widget


def test_solution_opens_only_after_an_attempt():
    exercise_id = IDS[0]
    exercise = ALL[exercise_id]
    refused = str(exercises.solution(exercise_id))
    assert exercise.solution not in refused and "after your first attempt" in refused
    exercises.check(exercise_id, None)  # no answer is no attempt
    assert exercise.solution not in str(exercises.solution(exercise_id))
    exercises.check(exercise_id, exercise.mistakes[0].answer())
    shown = exercises.solution(exercise_id)
    assert str(shown) == exercise.solution and shown._repr_markdown_() == exercise.solution


@pytest.mark.parametrize("exercise_id", IDS)
def test_answer_box_feedback_classes_and_solution(exercise_id):
    exercise = ALL[exercise_id]
    box = exercise.widget()
    assert {"dplearn-exercise", exercise.css_class} <= set(box._dom_classes)
    assert box.solution_button.disabled
    box.check_button.click()  # nothing chosen or typed yet
    assert "dplearn-no-answer" in box.feedback._dom_classes
    assert box.solution_button.disabled

    def enter(answer):
        # The box holds what a learner types or chooses: text, or an option's letter.
        box.answer.value = answer if exercise.kind != "number" else f"{float(answer)!r}"
        box.check_button.click()
        return set(box.feedback._dom_classes)

    item = exercise.mistakes[0]
    classes = enter(item.answer())
    assert {"dplearn-feedback", "dplearn-incorrect", f"dplearn-hint-{item.id}"} <= classes
    assert "dplearn-correct" not in classes
    assert not box.solution_button.disabled
    reference = exercise.source if exercise.kind == "function" else exercise.reference()
    classes = enter(reference)
    assert "dplearn-correct" in classes and not any(c.startswith("dplearn-hint") for c in classes)
    assert box.result.correct
    box.solution_button.click()
    shown = box.solution_area.outputs
    assert shown and exercise.solution in shown[0]["data"]["text/markdown"]
    assert exercise.id in box._repr_mimebundle_()["text/plain"]


def test_box_opens_its_solution_when_answered_from_code():
    exercise_id, other = IDS[0], IDS[1]
    shown_before, elsewhere = exercises.show(exercise_id), exercises.show(other)
    exercises.check(exercise_id, ALL[exercise_id].reference())
    assert not exercises.show(exercise_id).solution_button.disabled
    assert not shown_before.solution_button.disabled  # the box already on the page, too
    assert elsewhere.solution_button.disabled


# ----------------------------------------------------------- the grader's side channel


@pytest.mark.parametrize("exercise_id", IDS)
def test_recorded_answers_are_rechecked_the_same(exercise_id, tmp_path, monkeypatch):
    exercise = ALL[exercise_id]
    record = tmp_path / "answers.jsonl"
    monkeypatch.setenv(exercises.RECORD_VARIABLE, str(record))
    answers = [None, "junk", exercise.reference()] + [m.answer() for m in exercise.mistakes]
    results = [exercises.check(exercise_id, answer) for answer in answers]
    lines = record.read_text().splitlines()
    assert len(lines) == len(answers)
    for line, result in zip(lines, results, strict=True):
        entry = json.loads(line)
        assert entry["id"] == exercise_id and entry["status"] == result.status
        again = exercise.check_recorded(entry["answer"])
        assert (again.status, again.hint) == (result.status, result.hint) or (
            result.status == "no-answer" and again.status == "no-answer"
        )


def test_nothing_is_recorded_without_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(exercises.RECORD_VARIABLE, raising=False)
    monkeypatch.chdir(tmp_path)
    exercises.check(IDS[0], 1.0)
    assert not list(tmp_path.iterdir())


# ------------------------------------------------------------------ formula reader


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.0106", 0.0106),
        ("1e-5", 1e-5),
        ("10^-5", 1e-5),
        ("ln(3)", math.log(3)),
        ("log(3) / 2", math.log(3) / 2),
        ("−2 × 3", -6.0),
        ("2·3 ÷ 4", 1.5),
        ("sqrt(2*ln(1.25/1e-5))", math.sqrt(2 * math.log(1.25e5))),
        ("Phi(0)", 0.5),
        ("exp(1) - e", 0.0),
        ("max(1, 2) + min(3, 4)", 5.0),
        ("1.3 %", 0.013),
        ("9**9**9", math.inf),
        ("1/0", math.inf),
    ],
)
def test_formula_reader_reads_numbers(text, value):
    assert _expressions.read_number(text) == pytest.approx(value, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os')",
        "().__class__",
        "x[0]",
        "'abc'",
        "exp(x=1)",
        "lambda: 1",
        "[1]",
        "1 if 2 else 3",
        "a",
        "max(1)",
        "x" * 500,
        "3,14",
        "True",
        "%",
        "5 %%",
    ],
)
def test_formula_reader_refuses_what_is_not_arithmetic(text):
    with pytest.raises(_expressions.NotReadable):
        _expressions.read_number(text)


def test_formula_reader_makes_functions():
    square = _expressions.read_function("epsilon^2 + t", ("epsilon", "t"))
    assert square(3.0, 1.0) == 10.0
    renamed = _expressions.read_function("lambda a, b: a - b", ("epsilon", "t"))
    assert renamed(3.0, 1.0) == 2.0
    for bad in ("lambda a: a", "lambda *a: 1", "epsilon + s", "lambda a, b=1: a"):
        with pytest.raises(_expressions.NotReadable):
            _expressions.read_function(bad, ("epsilon", "t"))


# ---------------------------------------------------------------- notebook sections


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_section_is_the_banks(path):
    lesson = notebook.lesson_of(path)
    if not any(item.lesson == lesson for item in ALL.values()):
        pytest.skip(f"lesson {lesson:02d} has no bank yet")
    nb = nbformat.read(path, as_version=4)
    found = [cell for cell in nb.cells if notebook.is_section_cell(cell)]
    expected = notebook.section_cells(lesson)
    fix = f"run: python -m dplearn.exercises sync {path.relative_to(ROOT)}"
    assert [(c.cell_type, c.source, c.metadata.get("tags")) for c in found] == [
        (c.cell_type, c.source, c.metadata.get("tags")) for c in expected
    ], fix
    indices = [index for index, cell in enumerate(nb.cells) if notebook.is_section_cell(cell)]
    assert indices == list(range(indices[0], indices[0] + len(indices))), "section is split"
    after = nb.cells[indices[-1] + 1 :]
    assert all("navigation" in cell.metadata.get("tags", []) for cell in after), (
        "only a navigation footer may follow the exercises"
    )
    heading = [c for c in nb.cells if c.cell_type == "markdown" and "## Exercises" in c.source]
    assert len(heading) == 1, "one Exercises heading, the section's"
    for exercise_id, cell in notebook.answer_cells(nb).items():
        assert cell.source.startswith("answer = None"), exercise_id
    for cell in found:
        if cell.cell_type == "code":
            assert all(len(line) <= 100 for line in cell.source.splitlines()), cell.source


def _decimal_forms(value):
    if not math.isfinite(value) or value == round(value):
        return set()  # whole numbers and infinities appear in any prose
    forms = {f"{value:.{digits}g}" for digits in (3, 4, 5, 6)} | {f"{value:.3f}"}
    # Only forms with at least three significant digits and a fraction are telling.
    return {
        form
        for form in forms
        if "e" not in form
        and float(form) != round(float(form))
        and len(re.sub(r"[^0-9]", "", form).lstrip("0")) >= 3
    }


def _solution_phrases(text):
    plain = re.sub(r"\s+", " ", text)
    return [part.strip() for part in re.split(r"[.:;]\s", plain) if len(part.strip()) >= 40]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_no_reference_value_or_solution_in_the_notebook(path):
    raw = path.read_text(encoding="utf-8")
    nb = nbformat.read(path, as_version=4)
    sources = "\n".join(cell.source for cell in nb.cells)
    text = raw + "\n" + re.sub(r"\s+", " ", sources)
    for exercise in ALL.values():
        if exercise.kind == "number":
            for form in _decimal_forms(exercise.reference()):
                assert form not in text, f"{path.name} shows {exercise.id}'s answer {form}"
        if exercise.kind == "choice":
            right = exercise.options[exercise.answer]
            assert exercise.praise not in text or not exercise.praise
            assert f"answer = {exercise.answer!r}" not in text and f'"{right}"' not in raw
        if exercise.kind == "function":
            assert exercise.source not in text, f"{path.name} shows {exercise.id}'s formula"
        for phrase in _solution_phrases(exercise.solution):
            assert phrase not in text, f"{path.name} holds {exercise.id}'s solution: {phrase!r}"


# ------------------------------------------- references against independent values


def _bisect(function, low, high, steps=200):
    """The root of a function that changes sign on [low, high], by plain bisection."""
    low, high = mpmath.mpf(low), mpmath.mpf(high)
    rising = function(high) > 0
    for _ in range(steps):
        middle = (low + high) / 2
        if (function(middle) > 0) == rising:
            high = middle
        else:
            low = middle
    return (low + high) / 2


def _analytic_sigma(epsilon, delta, sensitivity=1.0):
    """The smallest sigma with Balle & Wang's delta = delta, solved at 60 digits."""
    target = mpmath.log(mpmath.mpf(delta))
    log_sigma = _bisect(
        lambda u: mpmath.log(oracle.gaussian_delta(epsilon, mpmath.exp(u), sensitivity)) - target,
        mpmath.log(sensitivity) - 10,
        mpmath.log(sensitivity) + 10,
        steps=110,  # 20 / 2**110: far below double precision
    )
    return mpmath.exp(log_sigma)


def _raw_minus_best_remap():
    """Truncated geometric on {0..4}, eps 0.5, uniform prior, |i - j|: raw loss minus the
    best loss over all 5**5 deterministic remaps (the LP optimum, by the theorem)."""
    n, a = 4, math.exp(-0.5)
    matrix = [
        [
            (a**i if j == 0 else a ** (n - i) if j == n else (1 - a) * a ** abs(i - j)) / (1 + a)
            for j in range(n + 1)
        ]
        for i in range(n + 1)
    ]

    def loss(remap):
        return sum(matrix[i][j] * abs(i - remap[j]) for i in range(n + 1) for j in range(n + 1)) / (
            n + 1
        )

    best = min(loss(remap) for remap in itertools.product(range(n + 1), repeat=n + 1))
    return loss(tuple(range(n + 1))) - best


def _epsilon_where_classic_is(ratio, delta, bracket):
    classic = mpmath.sqrt(2 * mpmath.log(mpmath.mpf("1.25") / delta))
    with mpmath.workdps(30):
        return _bisect(
            lambda epsilon: classic / epsilon / _analytic_sigma(epsilon, delta) - ratio,
            *bracket,
            steps=60,
        )


LN3 = math.log(3)
INDEPENDENT = {
    "01.odds-times-two": lambda: 1000.5 - math.log(2) / (2 * LN3),
    "01.posterior": lambda: 0.25,
    "01.middle-width": lambda: 4 / 9,
    "02.delta-two": lambda: oracle.gaussian_delta(1, 2),
    "02.epsilon-at-delta": lambda: _bisect(
        lambda epsilon: oracle.gaussian_delta(epsilon, mpmath.sqrt(3)) - mpmath.mpf("1e-5"), 1, 4
    ),
    "03.smallest-threshold": lambda: 1 + math.ceil(math.log(5e5) / LN3),
    "03.absent-ratio": lambda: 486 / 161,
    "04.blue-age-sum": lambda: 60,
    "04.sum-and-count": lambda: math.sqrt(3601),
    "05.noise-zero": lambda: math.tanh(0.5),
    "05.raw-gap": _raw_minus_best_remap,
    "06.ten-percent": lambda: _epsilon_where_classic_is(mpmath.mpf("1.1"), 1e-6, (1, 8)),
    "06.averages-l2": lambda: 0.01,
    "06.averages-sigma": lambda: _analytic_sigma(1, 1e-6, 0.01),
    "07.all-within": lambda: -math.log(1 - 0.95 ** (1 / 100)) / 5.5,
    "07.split-share": lambda: 40 / 3040,
}
INDEPENDENT_FUNCTIONS = {
    "02.width-formula": lambda epsilon, sigma: oracle.gaussian_loss_exceeds(epsilon, sigma),
    "03.published-probability": lambda t, b: mpmath.exp(-(t - 1) / mpmath.mpf(b)) / 2,
    "05.folded-tail": lambda i, epsilon: mpmath.exp(-epsilon * i) / (1 + mpmath.exp(-epsilon)),
    "07.rounded-error": lambda epsilon, k: (
        mpmath.exp(-k * mpmath.mpf(epsilon)) * mpmath.sinh(mpmath.mpf(epsilon) / 2)
    ),
}


def independent_values(lesson):
    """{id: value} and {id: function} for a lesson: above, or, for a lesson whose bank
    another file holds, in tests/exercise_values_lessonNN.py (INDEPENDENT and
    INDEPENDENT_FUNCTIONS, the same shape)."""
    try:
        module = importlib.import_module(f"tests.exercise_values_lesson{lesson:02d}")
    except ModuleNotFoundError:
        return INDEPENDENT, INDEPENDENT_FUNCTIONS
    return (
        {**INDEPENDENT, **getattr(module, "INDEPENDENT", {})},
        {**INDEPENDENT_FUNCTIONS, **getattr(module, "INDEPENDENT_FUNCTIONS", {})},
    )


@pytest.mark.parametrize("exercise_id", BY_KIND["number"] + BY_KIND["function"])
def test_reference_matches_an_independent_value(exercise_id):
    exercise = ALL[exercise_id]
    values, functions = independent_values(exercise.lesson)
    where = f"tests/exercise_values_lesson{exercise.lesson:02d}.py"
    if exercise.kind == "number":
        assert exercise_id in values, f"give {exercise_id} an independent value in {where}"
        expected = float(values[exercise_id]())
        assert exercise.reference() == pytest.approx(expected, rel=1e-9, abs=1e-12)
        return
    assert exercise_id in functions, f"give {exercise_id} an independent function in {where}"
    for case, value in zip(exercise.cases, exercise.reference_outputs(), strict=True):
        assert value == pytest.approx(float(functions[exercise_id](*case)), rel=1e-9, abs=1e-15)


# ------------------------------------------- the slips learners make, by their values

# What a learner types for each common slip, computed here from its own formula (not by
# the bank), with the hint it must get. Each slip is also checked the other way: the
# right answer, typed to four significant digits, is accepted, not taken for the slip.
_PHI = mpmath.ncdf


def _phi_inverse(probability):
    return mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(probability) - 1)


def _dp_accounting_laplace_delta():
    """dp_accounting's default (connect-the-dots) delta of 20 Laplace releases, b = 5."""
    from dp_accounting.pld import privacy_loss_distribution

    single = privacy_loss_distribution.from_laplace_mechanism(
        5.0, value_discretization_interval=0.05
    )
    return single.self_compose(20).get_delta_for_epsilon(1.0)


COMMON_SLIPS = [
    # 01: the attacker's prior ignored (even odds 1 : 1, factor 3): 3 / 4.
    ("01.posterior", "0.75", "ignored-prior"),
    # 01: the 1/2 of the Laplace tail forgotten: 1 - 3^-2.
    ("01.middle-width", "8/9", "forgot-half"),
    # 02: the classic sigma formula solved for epsilon at sigma = sqrt 3.
    (
        "02.epsilon-at-delta",
        f"{math.sqrt(2 * math.log(1.25e5)) / math.sqrt(3):.4g}",
        "classic-formula",
    ),
    # 03: the real root 1 + log_3(5e5) of 1/2 3^-(t - 1) = 1e-6, not rounded up.
    ("03.smallest-threshold", f"{1 + math.log(5e5) / LN3:.4g}", "not-rounded-up"),
    ("03.smallest-threshold", "12.9", "not-rounded-up"),
    # 03: the value PLRV-10 draws on "absent", after its cap at 1.
    ("03.absent-ratio", "1", "capped-value"),
    # 05: a^i alone, and the tail sum a^i / (1 - a) without the normalisation.
    ("05.folded-tail", "exp(-epsilon*i)", "one-weight-unnormalised"),
    ("05.folded-tail", "exp(-epsilon*i)/(1 - exp(-epsilon))", "tail-unnormalised"),
    # 08: eight times the delta of one release (sigma = 4) at epsilon = 1.
    ("08.delta-of-eight", f"{8 * oracle.gaussian_delta(1, 4):.4g}", "one-delta-times-k"),
    # 09: what dp_accounting reports with its defaults, a valid but different bound.
    ("09.accountant-report", "0.08268", "connect-the-dots"),
    ("09.accountant-report", f"{_dp_accounting_laplace_delta():.4g}", "connect-the-dots"),
    ("09.accountant-report", "0.08261", "exact-not-reported"),
    # 09: Phi^-1(alpha) in place of Phi^-1(1 - alpha), mu = sqrt(4) / 2 = 1.
    ("09.beta-at-alpha", f"{_PHI(_phi_inverse(0.05) - 1):.4g}", "alpha-for-one-minus-alpha"),
    # 09: mu of one release.
    ("09.gaussian-mu", "1/sigma", "one-release"),
    # 00: the ratio the lesson printed at n = 1000, not at 10 000.
    ("00.local-versus-central", "24", "lesson-n"),
    # 00: ln t, a negative epsilon, in place of ln(t / (1 - t)).
    ("00.biased-coin", "ln(0.8)", "log-of-t"),
    # 10: the exact delta compared with delta0, not q * delta0.
    ("10.bound-overstates", "612.9", "no-q"),
]


@pytest.mark.parametrize(
    ("exercise_id", "typed", "hint"), COMMON_SLIPS, ids=[f"{s[0]}:{s[2]}" for s in COMMON_SLIPS]
)
def test_common_slips_get_their_own_hint(exercise_id, typed, hint):
    exercise = ALL[exercise_id]
    result = exercise.check(typed)
    assert result.status == "mistake" and result.hint == hint, (typed, result)
    if exercise.kind == "number":
        right = f"{exercise.reference():.4g}"
        assert exercise.check(right).correct, (right, exercise.check(right))


def test_whole_number_feedback_reads_plainly():
    exercise = ALL["03.smallest-threshold"]
    wrong = exercise.check("20")
    assert wrong.status == "not-yet"
    assert "not the whole number asked for" in wrong.message, wrong.message
    assert "exact" not in wrong.message  # "not exact" would read as "not precise enough"
    # A fraction is told that a whole number is asked for, with what it counts.
    fraction = ALL["11.epochs-afford"].check("43.5")
    assert fraction.status == "not-yet"
    assert fraction.message == "43.5 is not a whole number: a whole number of epochs is asked for."
    assert "(a whole number)" not in wrong.message
    assert exercise.check("13").message.startswith("Right, the exact whole number")
    # A slip's value is recognised to two decimals, but never a whole number away.
    assert exercise.check("13.0").correct and not exercise.check("12.99").correct


def test_whole_numbers_are_a_tolerance_of_the_checker_with_one_wording():
    whole = exercises.whole_number()
    assert whole == exercises.exact() == exercises.Tolerance(whole=True)
    assert whole.describe() == "the exact whole number"
    # A whole-number target exactly; a slip that is not a whole number to ±0.05.
    assert whole.accepts(13, 13.0) and not whole.accepts(13.01, 13)
    assert not whole.accepts(12, 13) and not whole.accepts(14, 13)
    assert whole.accepts(12.94, 12.9365) and whole.accepts(12.9, 12.9365)
    assert not whole.accepts(12.8, 12.9365) and not whole.accepts(13, 12.9365)
    assert not whole.accepts(math.nan, 13) and whole.accepts(math.inf, math.inf)
    # Every bank with a whole-number answer takes it from the checker, in its wording.
    banks = [item for item in ALL.values() if item.kind == "number" and item.tolerance.whole]
    assert {item.lesson for item in banks} >= {3, 4}
    for item in banks:
        assert type(item.tolerance) is exercises.Tolerance, item.id
        right = item.check(str(int(item.reference())))
        assert right.message == "Right, the exact whole number.", (item.id, right.message)
        assert item.answer_help() == "a whole number"
    with pytest.raises(ImportError):
        importlib.import_module("dplearn.exercises._whole")


# ------------------------------------------- what the app (Voilà) shows: no code

_MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$", re.S)
_CODE_SPAN = re.compile(r"`([^`]*)`")
# A snake_case name, a dotted call or attribute, or a library's name: code, not words.
_CODE_WORD = re.compile(
    r"\b[A-Za-z]+_[A-Za-z_]+\b|\b[A-Za-z_]\w*\.[A-Za-z_]\w+\b|\b(?:np|scipy|brentq|numpy)\b"
)
# Every bank: the app must stand on its own in every lesson.
APP_READY = IDS


def _shown_texts(exercise):
    """Every text an answer box shows in app mode: question, options, hints, solution."""
    texts = [exercise.question, exercise.solution, exercise.advice]
    texts += [item.message for item in exercise.mistakes]
    if exercise.kind == "choice":
        texts += list(exercise.options.values()) + [exercise.praise]
    return [text for text in texts if text]


def assert_no_code_shown(exercise):
    """In Voilà nobody can run code: an exercise's hints and solution speak in words and
    formulas (a code span only for what its answer box reads)."""
    for text in _shown_texts(exercise):
        for span in _CODE_SPAN.findall(text):
            assert _box_syntax(span, exercise), f"{exercise.id} shows code: `{span}`"
        words = _CODE_SPAN.sub(" ", _MATH.sub(" ", text))
        found = _CODE_WORD.findall(words)
        assert not found, f"{exercise.id} shows code words {found} in: {text[:120]!r}"


def _box_syntax(span, exercise):
    """True when a `code span` is something the answer box itself reads."""
    if span in _expressions.FUNCTIONS or span in _expressions.CONSTANTS:
        return True
    if exercise.kind == "function" and span == exercise.signature:
        return True
    parameters = exercise.parameters if exercise.kind == "function" else ()
    for reader in (
        lambda text: _expressions.read_number(text),
        lambda text: _expressions.read_function(text, parameters),
    ):
        try:
            reader(span)
            return True
        except _expressions.NotReadable:
            continue
    return False


@pytest.mark.parametrize("exercise_id", APP_READY)
def test_no_code_in_what_the_app_shows(exercise_id):
    """In Voilà nobody can run code: hints and solutions speak in words and formulas."""
    exercise = ALL[exercise_id]
    in_the_app = exercise.shown_solution(app_mode=True)
    assert not exercise.from_code or exercise.from_code not in in_the_app
    for text in _shown_texts(exercise) + [in_the_app]:
        for span in _CODE_SPAN.findall(text):
            assert _box_syntax(span, exercise), f"{exercise_id} shows code: `{span}`"
        words = _CODE_SPAN.sub(" ", _MATH.sub(" ", text))
        found = _CODE_WORD.findall(words)
        assert not found, f"{exercise_id} shows code words {found} in: {text[:120]!r}"


# ------------------------------------------ the "from code" line: JupyterLab only

FROM_CODE = [exercise_id for exercise_id in IDS if ALL[exercise_id].from_code]
_APP_VARIABLES = ("VOILA_PREHEAT", "SERVER_SOFTWARE")


def _box_solution(exercise_id):
    """The markdown the answer box shows under Show solution, after an attempt."""
    box = ALL[exercise_id].widget()
    exercises.check(exercise_id, ALL[exercise_id].reference())
    box.solution_button.click()
    return box.solution_area.outputs[0]["data"]["text/markdown"]


def test_some_solutions_have_a_from_code_line():
    assert len(FROM_CODE) >= 3 and {ALL[item].lesson for item in FROM_CODE} >= {2, 5, 8}
    for exercise_id in FROM_CODE:
        assert _CODE_SPAN.search(ALL[exercise_id].from_code), exercise_id


@pytest.mark.parametrize("exercise_id", IDS)
def test_the_app_shows_no_from_code_line_and_jupyterlab_does(exercise_id, monkeypatch):
    exercise = ALL[exercise_id]
    monkeypatch.setenv("VOILA_PREHEAT", "False")
    for shown in (_box_solution(exercise_id), str(exercises.solution(exercise_id))):
        assert exercise.solution in shown and "From code" not in shown
        words = _CODE_SPAN.sub(" ", _MATH.sub(" ", shown))
        assert not _CODE_WORD.findall(words), (exercise_id, _CODE_WORD.findall(words))
        for span in _CODE_SPAN.findall(shown):
            assert _box_syntax(span, exercise), f"{exercise_id} shows code in the app: `{span}`"
    for name in _APP_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for shown in (_box_solution(exercise_id), str(exercises.solution(exercise_id))):
        assert exercise.solution in shown
        if exercise.from_code:
            assert shown.endswith(f"*From code:* {exercise.from_code}"), shown[-200:]
        else:
            assert "From code" not in shown


@pytest.mark.parametrize("exercise_id", [item for item in FROM_CODE if ALL[item].kind == "number"])
def test_a_from_code_line_computes_the_reference(exercise_id):
    """Its code spans, run in order (assignments, then the first expression), give the
    reference: the line a JupyterLab learner copies is right."""
    from dplearn import calibration, composition, optimality, privacy_loss

    namespace = {
        "np": np,
        "calibration": calibration,
        "composition": composition,
        "optimality": optimality,
        "privacy_loss": privacy_loss,
    }
    for span in _CODE_SPAN.findall(ALL[exercise_id].from_code):
        try:
            value = eval(span, namespace)  # noqa: S307 - the bank's own text, not an answer
        except SyntaxError:
            exec(span, namespace)  # noqa: S102 - an assignment the next span uses
            continue
        assert math.isclose(float(value), ALL[exercise_id].reference(), rel_tol=1e-12)
        return
    raise AssertionError(f"{exercise_id}: no code span computes a value")


def test_box_help_fits_the_answer_and_the_mode(monkeypatch):
    """A count's box offers no formulas; the app's formula box never speaks of code."""
    from dplearn.exercises._widget import _help

    whole = [e for e in ALL.values() if e.kind == "number" and e.tolerance.whole]
    assert whole, "no whole-number exercise"
    for exercise in whole:
        assert _help(exercise) == "Type a whole number, then press <b>Check</b> or Enter."
    functions = [ALL[key] for key in BY_KIND["function"]]
    assert functions, "no function exercise"
    monkeypatch.delenv("VOILA_PREHEAT", raising=False)
    monkeypatch.delenv("SERVER_SOFTWARE", raising=False)
    assert all("<code>check(...)</code>" in _help(e) for e in functions)
    monkeypatch.setenv("VOILA_PREHEAT", "True")
    for exercise in functions:
        assert "check(" not in _help(exercise) and "Python" not in _help(exercise)
        assert "Phi_inv" in _help(exercise) and "floor, ceil" in _help(exercise)
        assert "exp, ln, sqrt" in _help(exercise)


# ------------------------------------------- the learner's language


class _Bracketed(dict):
    """A catalog that translates every message into itself between ⟦ and ⟧."""

    def get(self, key, default=None):
        message, plural = key
        if plural is None:
            return f"⟦{message}⟧"
        return [f"⟦{message}⟧", f"⟦{plural}⟧"]


@pytest.fixture
def bracketed(monkeypatch):
    """A language whose every word is marked: what the learner reads must be marked."""
    from dplearn import language

    monkeypatch.setattr(language, "_current", language.LANGUAGES["zh"])
    monkeypatch.setattr(language, "_translations", lambda code: _Bracketed())


def test_what_a_learner_reads_is_translated_and_the_banks_stay_english(bracketed, monkeypatch):
    number = ALL["00.two-releases"]
    slip = number.mistakes[0]
    result = number.check(slip.answer())
    assert result.message == f"⟦{slip.message}⟧" and result.hint == slip.id
    assert str(result).startswith(f"{number.id}: ⟦✘ Not yet.⟧")
    assert result.verdict == "not yet"  # the grader's words, for a teacher's table
    right = number.check(str(number.reference()))
    assert right.message == "⟦Right, ⟦within ±0.001⟧.⟧"
    unread = number.check("abc").message
    assert unread.startswith("⟦I could not read that: ⟦'abc' is no number or function I know")
    assert "⟦use numbers and + − × ÷, ln, exp, sqrt, pi and e⟧" in unread
    assert number.shown_solution(app_mode=True) == f"⟦{number.solution}⟧"
    # The box: its labels, buttons, options and feedback.
    box = number.widget()
    assert box.answer.description == "⟦Your answer⟧" and box.check_button.description == "⟦Check⟧"
    assert box.solution_button.description == "⟦Show solution⟧"
    box.answer.value = "abc"
    box.check_button.click()
    assert "⟦(check 1: abc)⟧" in box.feedback.value
    choice = ALL[BY_KIND["choice"][0]]
    buttons = choice.widget().answer
    assert all("⟦" in label for label in buttons._options_labels)
    praised = choice.check(choice.answer)
    assert praised.message.startswith(f"⟦({choice.answer}) is right.⟧")
    assert not choice.praise or praised.message.endswith(f"⟦{choice.praise}⟧")
    # An option's text is read as the box shows it, or in English.
    letter, text = next(iter(choice.options.items()))
    assert choice._letter(f"⟦{text}⟧") == choice._letter(text) == letter
    # The notebook's Exercises section stays English: its code and its markdown.
    written = "".join(cell.source for cell in notebook.section_cells(number.lesson))
    assert "⟦" not in written and "replace None by" in written
