"""One press of Check or Enter is one check, fed the messages a browser sends, headless.

A text box sends its text when it loses focus (a press of Check causes that) and when
Enter is pressed; Enter also sends its own message, just before the text. The tests feed
those messages to the box's widgets in the browser's order, with the browser's send
times, and read the count the feedback shows. tests/test_browser_exercises.py presses the
keys in Chromium.
"""

import datetime

import pytest

from dplearn import exercises

ALL = exercises.load_all()
TYPED = [item for item in ALL.values() if item.kind != "choice"]
START = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def message(data, seconds):
    """A message from the browser, sent `seconds` after START."""
    header = {"date": START + datetime.timedelta(seconds=seconds)}
    return {"header": header, "content": {"data": data}, "buffers": []}


def text_sent(box, text, seconds):
    """The text of the field, as the browser sends it (focus lost, or Enter)."""
    box.answer._handle_msg(message({"method": "update", "state": {"value": text}}, seconds))


def enter(box, seconds):
    box.answer._handle_msg(message({"method": "custom", "content": {"event": "submit"}}, seconds))


def click_check(box, seconds):
    box.check_button._handle_msg(
        message({"method": "custom", "content": {"event": "click"}}, seconds)
    )


def count(box):
    return box.checks, box.feedback.value.count("(check ")


@pytest.fixture
def box():
    return ALL["00.two-releases"].widget()


def test_typing_then_pressing_check_is_one_check(box):
    text_sent(box, "0.3", 1.0)  # the mouse press moves the focus off the field
    assert count(box) == (0, 0) and box.feedback.value == ""
    click_check(box, 1.1)
    assert box.checks == 1 and "(check 1: 0.3)" in box.feedback.value


def test_enter_with_new_text_is_one_check_of_that_text(box):
    text_sent(box, "0.3", 1.0)
    click_check(box, 1.1)
    enter(box, 5.0)  # Enter, then its text in the same keystroke
    text_sent(box, "0.31", 5.001)
    assert box.checks == 2 and "(check 2: 0.31)" in box.feedback.value
    assert box.result.status == exercises.NOT_YET


def test_enter_and_check_on_the_same_text_each_count_once(box):
    text_sent(box, "0.3", 1.0)
    click_check(box, 1.1)
    enter(box, 3.0)  # the text was sent already: only Enter's message comes
    assert "(check 2: 0.3)" in box.feedback.value
    enter(box, 4.0)
    click_check(box, 5.0)
    assert box.checks == 4 and "(check 4: 0.3)" in box.feedback.value


def test_leaving_the_box_is_no_check(box):
    text_sent(box, "0.3", 1.0)
    click_check(box, 1.1)
    enter(box, 3.0)
    # New text, then Tab away, later than one keystroke after Enter: not a press.
    text_sent(box, "0.5", 6.0)
    assert box.checks == 2 and "(check 2: 0.3)" in box.feedback.value
    click_check(box, 7.0)
    assert box.checks == 3 and "(check 3: 0.5)" in box.feedback.value


@pytest.mark.parametrize("exercise_id", [item.id for item in TYPED])
def test_every_typed_box_counts_one_press_once(exercise_id):
    exercise = ALL[exercise_id]
    box = exercise.widget()
    answer = exercise.source if exercise.kind == "function" else str(exercise.reference())
    text_sent(box, answer, 1.0)
    click_check(box, 1.1)
    assert box.checks == 1 and box.result.correct
    enter(box, 2.0)
    assert box.checks == 2 and "(check 2: " in box.feedback.value


def test_a_choice_box_counts_one_press_once():
    exercise = next(item for item in ALL.values() if item.kind == "choice")
    box = exercise.widget()
    box.answer._handle_msg(
        message({"method": "update", "state": {"index": 0}}, 1.0)
    )  # an option clicked
    assert box.checks == 0
    click_check(box, 2.0)
    assert box.checks == 1 and "(check 1: " in box.feedback.value
