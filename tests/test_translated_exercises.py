"""Every exercise answered both ways in 中文 and Русский, typed as a learner there types.

The right answer typed with full-width digits and punctuation (a Chinese input method's
０．４６２, （Ｂ）) is correct; each anticipated slip gets its hint in the reader's language,
and so do the verdict's words and the worked solution.
"""

import re

import pytest

from dplearn import exercises, language
from dplearn.language import gettext as _

ALL = exercises.load_all()
SCRIPT = {"zh": re.compile(r"[\u4e00-\u9fff]"), "ru": re.compile(r"[А-Яа-яЁё]")}
#: ASCII to the full-width forms a Chinese input method types.
FULL_WIDTH = str.maketrans(
    {chr(code): chr(code + 0xFEE0) for code in range(0x21, 0x7F) if chr(code) not in "`\\"}
)


@pytest.fixture(params=["zh", "ru"])
def speaking(request):
    language.set_language(request.param)
    try:
        yield request.param
    finally:
        language.set_language("en")


def typed(exercise, answer):
    """An answer as text a learner types, full width where a Chinese keyboard gives it."""
    if exercise.kind == "number":
        answer = repr(float(answer))
    return str(answer).translate(FULL_WIDTH)


@pytest.mark.parametrize("exercise_id", list(ALL))
def test_exercise_answered_rightly_and_wrongly_in_the_readers_language(exercise_id, speaking):
    exercise = ALL[exercise_id]
    script = SCRIPT[speaking]
    right = exercise.source if exercise.kind == "function" else exercise.reference()
    result = exercise.check(typed(exercise, right))
    assert result.correct, f"{exercise_id}: {typed(exercise, right)!r} → {result.message}"
    for item in exercise.mistakes:
        wrong = exercise.check(typed(exercise, item.answer()))
        assert not wrong.correct, f"{exercise_id}: {item.id}"
        assert _(item.message) in str(wrong), f"{exercise_id}: {item.id} got {wrong}"
        assert script.search(str(wrong)), f"{exercise_id}: {item.id}: {wrong}"
    assert script.search(exercise.shown_solution(app_mode=True)), exercise_id
