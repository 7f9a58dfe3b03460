"""The exercises in a real browser: every answer box of a lesson, in Voilà, in Chromium.

For each lesson with an exercise bank, its Voilà page (the lesson's one visit, in
tests/test_browser.py's test_lesson_in_voila, calls ``check_exercises``): in every answer
box, enter an anticipated mistake (typed, or the option clicked) and press Check, and see its hint
(``dplearn-hint-<id>``); enter the reference (by Enter in a text box, then Check on
the same text) and see ``dplearn-correct``; press Show solution and see the worked
solution with its formulas typeset, and the feedback count one check per press. Before
any of that, the page shows each box and nothing of its answer cell ("NN.id: No answer
yet." is for JupyterLab, where the cell can be run). The first such lesson is also opened
in JupyterLab (Run All), its boxes driven the same way. The servers, the
browser and the screenshots are the session's (tests/conftest.py).
"""

import pathlib

import pytest

from dplearn import exercises
from dplearn.exercises import notebook
from tests.test_browser import CHROMIUM, NOTEBOOK_DIR, RUN_ALL_IN_LAB

ALL = exercises.load_all()
NOTEBOOKS = [
    path
    for path in sorted(NOTEBOOK_DIR.glob("*.ipynb"))
    if any(item.lesson == notebook.lesson_of(path) for item in ALL.values())
]

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"
    ),
]

# Typeset formulas: MathJax 3 (JupyterLab 4, Voilà 0.5) renders mjx-container elements.
TYPESET = "mjx-container, .MathJax, .katex"


def typed(exercise, answer):
    """What a learner types into the box for this answer."""
    if exercise.kind == "number":
        return repr(float(answer))
    return answer


def enter(box, exercise, answer, key="Check"):
    """Types or chooses answer in one box and presses Check (or Enter, in a text box)."""
    if exercise.kind == "choice":
        from playwright.sync_api import expect

        # A click can land beside the option while the page above it still grows (Run All
        # in JupyterLab typesets and draws as it goes): Check waits until the option holds.
        option = box.locator(".dplearn-answer label", has_text=f"({answer})").first
        radio = option.locator("input")
        for _attempt in range(3):
            option.click()
            try:
                expect(radio).to_be_checked(timeout=5_000)
                break
            except AssertionError:
                continue
        expect(radio).to_be_checked(timeout=1)
    else:
        field = box.locator(".dplearn-answer input")
        field.fill(typed(exercise, answer))
        if key == "Enter":
            field.press("Enter")
            return
    box.locator("button.dplearn-check").click()


def wait_for_count(box, checks, exercise_id):
    """Waits until the feedback counts `checks` checks."""
    count = box.locator(".dplearn-check-count", has_text=f"(check {checks}: ")
    try:
        count.wait_for(state="attached", timeout=30_000)
    except Exception as error:
        shown = box.locator(".dplearn-feedback").first.inner_text()
        raise AssertionError(f"{exercise_id}: expected check {checks}; reads {shown!r}") from error


def wait_for_feedback(box, css_class, exercise_id, what):
    feedback = box.locator(f".dplearn-feedback.{css_class}")
    try:
        feedback.wait_for(state="attached", timeout=30_000)
    except Exception as error:
        shown = box.locator(".dplearn-feedback").first
        raise AssertionError(
            f"{exercise_id}: {what} did not get {css_class}; feedback reads "
            f"{shown.inner_text()!r}, classes {shown.get_attribute('class')!r}"
        ) from error
    return feedback


def drive_box(page, exercise, app=True):
    """Answers one box wrongly, then rightly, and opens its solution: in the app (Voilà)
    without the from-code line, in JupyterLab with it."""
    box = page.locator(f".dplearn-exercise.{exercise.css_class}")
    box.scroll_into_view_if_needed()
    solution_button = box.locator("button.dplearn-show-solution")
    assert solution_button.is_disabled(), f"{exercise.id}: solution open before an attempt"
    wrong = exercise.mistakes[0]
    enter(box, exercise, wrong.answer())
    feedback = wait_for_feedback(box, f"dplearn-hint-{wrong.id}", exercise.id, "a mistake")
    assert "dplearn-incorrect" in feedback.get_attribute("class")
    assert "Not yet" in feedback.inner_text()
    wait_for_count(box, 1, exercise.id)
    # One press, one check: the reference by Enter in a text box, then Check on the same text.
    reference = exercise.source if exercise.kind == "function" else exercise.reference()
    enter(box, exercise, reference, key="Enter")
    feedback = wait_for_feedback(box, "dplearn-correct", exercise.id, "the reference")
    assert "Correct" in feedback.inner_text()
    presses = 2
    if exercise.kind != "choice":
        wait_for_count(box, presses, exercise.id)
        box.locator("button.dplearn-check").click()
        presses += 1
    solution_button.click()
    solution = box.locator(".dplearn-solution")
    solution.locator(TYPESET).first.wait_for(state="attached", timeout=30_000)
    assert "Worked solution" in solution.inner_text(), exercise.id
    # The solution came after every press was handled: the count is final.
    shown = box.locator(".dplearn-check-count").inner_text()
    assert shown.startswith(f"(check {presses}: "), f"{exercise.id}: {presses} presses, {shown!r}"
    shown = solution.inner_text()
    if app or not exercise.from_code:
        assert "From code" not in shown, f"{exercise.id}: the app shows the from-code line"
    else:
        assert "From code" in shown, f"{exercise.id}: JupyterLab hides the from-code line"


def check_exercises(page, notebook_path, screenshots):
    """Drives every answer box of a lesson's Voilà page (nothing for a lesson without)."""
    chosen = [item for item in ALL.values() if item.lesson == notebook.lesson_of(notebook_path)]
    if not chosen:
        return
    last = page.locator(f".dplearn-exercise.{chosen[-1].css_class}")
    last.wait_for(state="attached", timeout=120_000)
    assert page.locator(".dplearn-exercise").count() == len(chosen)
    assert "Error displaying widget" not in page.inner_text("body")
    # App mode shows the boxes, not the answer cells' plumbing under them.
    page.wait_for_load_state("load")
    shown = page.inner_text("body")
    plumbing = [item.id for item in chosen if f"{item.id}:" in shown]
    assert "No answer yet" not in shown and not plumbing, plumbing
    for exercise in chosen:
        drive_box(page, exercise)
    first = page.locator(f".dplearn-exercise.{chosen[0].css_class}")
    first.scroll_into_view_if_needed()
    shot = screenshots / f"exercises-{pathlib.Path(notebook_path.name).stem}.png"
    page.screenshot(path=str(shot))


def test_every_lesson_with_exercises_is_visited_in_voila():
    """check_exercises runs in each lesson's visit: every lesson with a bank is one."""
    from tests.test_browser import NOTEBOOKS as LESSONS

    assert set(NOTEBOOKS) <= set(LESSONS), sorted(set(NOTEBOOKS) - set(LESSONS))


@pytest.mark.skipif(not NOTEBOOKS, reason="no lesson has exercises yet")
def test_exercises_in_jupyterlab(browser, screenshots, lab_site):
    # The first lesson whose solutions have a from-code line, which JupyterLab shows.
    notebook_path = next(
        path
        for path in NOTEBOOKS
        if any(item.from_code and item.lesson == notebook.lesson_of(path) for item in ALL.values())
    )
    chosen = [item for item in ALL.values() if item.lesson == notebook.lesson_of(notebook_path)]
    page = browser.new_page()
    try:
        page.goto(lab_site.address("exercises", f"notebooks/{notebook_path.name}"), timeout=90_000)
        page.wait_for_function("() => window.jupyterapp", timeout=90_000)
        page.evaluate(RUN_ALL_IN_LAB)
        last = page.locator(f".dplearn-exercise.{chosen[-1].css_class}")
        last.wait_for(state="attached", timeout=120_000)
        for exercise in chosen:
            drive_box(page, exercise, app=False)
        # The answer cells ran too: each says, quietly, that no answer came from code.
        outputs = page.locator(".jp-OutputArea-output", has_text="No answer yet")
        assert outputs.count() >= 1
        page.locator(f".dplearn-exercise.{chosen[0].css_class}").scroll_into_view_if_needed()
        page.screenshot(path=str(screenshots / f"exercises-lab-{notebook_path.stem}.png"))
    finally:
        page.close()
