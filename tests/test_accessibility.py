"""The lessons as a screen reader or a keyboard meets them, audited in a real browser.

The session's Voilà server serves the notebooks folder (as `tasks.sh present` does);
each lesson's one visit (tests/test_browser.py's test_lesson_in_voila) ends with
``audit_lesson``: axe-core on the page, after its sliders, buttons and answer boxes were
used, with the rules of WCAG 2.0 and 2.1, levels A and AA: any violation fails. It also
checks what axe does not judge: every figure is an image with a name and a description,
every control has a name. One lesson's cells are audited the same way in JupyterLab (the
notebook's cells, not JupyterLab's own menus and side bars). One test reads Playwright's
aria snapshot (the accessibility tree): a figure's description and a slider's name and
value are there, and moving the slider with the keyboard changes the description.

axe-core comes from npm, into a folder of its own that git ignores (`bash tasks.sh a11y`
installs it and runs this module; by hand: npm install --prefix .axe axe-core@4.14.1).
$DPLEARN_AXE may name another copy of axe.min.js; without one the module is skipped.
With -s the counts are printed.
"""

import os
import pathlib

import pytest

from dplearn.figures.page_access import QUIET_MS
from tests.test_browser import CHROMIUM, NOTEBOOK_DIR, RUN_ALL_IN_LAB, wait_until_live

ROOT = pathlib.Path(__file__).resolve().parents[1]
AXE = pathlib.Path(
    os.environ.get("DPLEARN_AXE", ROOT / ".axe" / "node_modules" / "axe-core" / "axe.min.js")
)
#: The rules axe runs: WCAG 2.0 and 2.1 at levels A and AA (a course's legal bar).
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: The lesson whose accessibility tree is read, and whose cells JupyterLab shows.
TREE_LESSON = NOTEBOOK_DIR / "02-see-what-delta-means.ipynb"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed"),
    pytest.mark.skipif(
        not AXE.is_file(), reason="axe-core is not installed (npm install --prefix .axe axe-core@4)"
    ),
]

# Runs axe on the page (or on the part that `include` selects) and lists each violation
# with the first few elements it names.
RUN_AXE = """
async ([context, tags]) => {
  context = context || document;
  const result = await axe.run(context, {runOnly: {type: 'tag', values: tags}});
  return result.violations.map(v => ({
    rule: v.id, impact: v.impact, count: v.nodes.length,
    where: v.nodes.slice(0, 3).map(n => `${n.target.join(' ')}: ${n.failureSummary}`),
  }));
}
"""

# What axe does not judge. Figures: every live figure is an image with a name and a
# description. Controls: every slider handle, row of toggle buttons, button and answer
# input, with its accessible name as far as the page can tell (aria-labelledby / label).
ACCESS_COUNTS = """
(root) => {
  const scope = root ? document.querySelector(root) : document;
  const text = (ids) => (ids || '').split(/\\s+/).filter(Boolean)
    .map(id => (document.getElementById(id) || {textContent: ''}).textContent.trim())
    .join(' ').trim();
  const figures = Array.from(scope.querySelectorAll('.jupyter-matplotlib'), figure => ({
    role: figure.getAttribute('role'),
    name: text(figure.getAttribute('aria-labelledby')),
    description: text(figure.getAttribute('aria-describedby')),
  }));
  const named = (element) => {
    const label = text(element.getAttribute('aria-labelledby'))
      || element.getAttribute('aria-label') || '';
    if (label) return label;
    if (element.labels && element.labels.length) {
      return Array.from(element.labels, l => l.textContent.trim()).join(' ');
    }
    const content = element.tagName === 'BUTTON' ? element.textContent.trim() : '';
    return content || element.getAttribute('title') || '';
  };
  const controls = [
    ...Array.from(scope.querySelectorAll('.noUi-handle'), e => ['slider', e]),
    ...Array.from(scope.querySelectorAll('.widget-toggle-buttons [role=group]'),
                  e => ['buttons', e]),
    ...Array.from(scope.querySelectorAll('.jupyter-widgets button'), e => ['button', e]),
    ...Array.from(scope.querySelectorAll('.jupyter-widgets input'), e => ['input', e]),
  ].filter(([kind, element]) => element.checkVisibility({visibilityProperty: true}))
   .map(([kind, element]) => ({kind, name: named(element), html: element.outerHTML.slice(0, 160),
                                value: element.getAttribute('aria-valuetext')}));
  return {figures, controls};
}
"""

SCRIPT_READY = """
() => window.dplearnPageAccess !== undefined
  && Array.from(document.querySelectorAll('.noUi-handle'))
       .every(h => h.hasAttribute('aria-labelledby'))
  && Array.from(document.querySelectorAll('.dplearn-exploration .jupyter-matplotlib'))
       .every(f => f.getAttribute('role') === 'img')
"""


def open_lesson(browser, site, notebook):
    page = browser.new_page()
    page.goto(site.base + notebook.name, timeout=90_000)
    wait_until_live(page, notebook)
    page.wait_for_function(SCRIPT_READY, timeout=30_000)
    return page


def audit(page, context=None):
    """axe's violations on the page (or on the part an axe context selects)."""
    if not page.evaluate("() => window.axe !== undefined"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN_AXE, [context, WCAG_TAGS])


def check_names(page, where, root=None):
    """Counts figures and controls under root (a selector; the page by default) and
    asserts that each has its name (and a figure its description)."""
    found = page.evaluate(ACCESS_COUNTS, root)
    figures, controls = found["figures"], found["controls"]
    for figure in figures:
        assert figure["role"] == "img" and figure["name"].startswith("Figure"), (where, figure)
        assert len(figure["description"]) > 40, (where, figure)
    unnamed = [control for control in controls if not control["name"].strip()]
    assert not unnamed, (where, unnamed)
    for control in controls:
        if control["kind"] == "slider":
            assert control["value"], (where, control)
    print(f"{where}: {len(figures)} figures described, {len(controls)} controls named")
    return len(figures), len(controls)


def audit_lesson(page, notebook):
    """axe finds no violation on a lesson's page, and every figure and control is named.

    Called at the end of the lesson's visit; without axe-core installed, it checks nothing
    (this module's tests say so by being skipped).
    """
    if not AXE.is_file():
        return
    page.wait_for_function(SCRIPT_READY, timeout=30_000)
    violations = audit(page)
    check_names(page, f"voila {notebook.stem}")
    print(f"voila {notebook.stem}: {sum(v['count'] for v in violations)} axe violations")
    assert violations == [], violations


def test_every_lesson_is_audited_in_its_visit():
    """audit_lesson runs in test_lesson_in_voila, once per lesson."""
    import inspect

    from tests import test_browser

    assert "audit_lesson(page, notebook)" in inspect.getsource(test_browser.test_lesson_in_voila)


def test_aria_tree_holds_a_figure_description_and_a_slider_name_that_follow_the_keys(
    browser, voila_site
):
    page = open_lesson(browser, voila_site, TREE_LESSON)
    try:
        box = page.locator(".dplearn-exploration").first
        figure = box.locator(".jupyter-matplotlib")
        handle = box.locator(".noUi-handle").first
        description = box.locator(".dplearn-figure-description")
        before_text = description.text_content().strip()
        before_tree = box.aria_snapshot()
        # The figure is an image named by its id and title; its description is in the
        # tree; the first slider is named by its label and says the value it shows.
        assert 'img "Figure PLRV-4: Gaussian noise: two counts"' in before_tree, before_tree
        assert before_text in before_tree.replace("\n", " ") or before_text[:60] in before_tree
        assert 'slider "σ"' in before_tree, before_tree
        readout = box.locator(".widget-readout").first
        assert handle.get_attribute("aria-valuetext") == readout.text_content().strip()
        assert figure.get_attribute("aria-describedby") == description.get_attribute("id")
        before_value = handle.get_attribute("aria-valuetext")

        handle.focus()
        for _ in range(6):
            page.keyboard.press("ArrowRight")
        # The live region speaks once the figure has been still for QUIET_MS.
        live = box.locator(".dplearn-figure-live")
        page.wait_for_function(
            "(element) => element.textContent.trim().length > 0",
            arg=live.element_handle(),
            timeout=QUIET_MS + 15_000,
        )
        after_text = description.text_content().strip()
        after_tree = box.aria_snapshot()
        assert after_text != before_text
        assert live.text_content().strip() == after_text
        assert handle.get_attribute("aria-valuetext") != before_value
        assert after_text[:60] in after_tree and before_tree != after_tree
        print(
            f"before: {before_text}\nafter {handle.get_attribute('aria-valuetext')}: {after_text}"
        )
    finally:
        page.close()


def test_lesson_cells_have_no_accessibility_violation_in_jupyterlab(browser, lab_site):
    notebook = f"notebooks/{TREE_LESSON.name}"
    cells = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell"
    # The cells, without JupyterLab's own code editor (CodeMirror's text box has no name,
    # and the cell list's role "feed" takes no such children: JupyterLab's, not ours).
    context = {"include": [cells], "exclude": [".jp-InputArea-editor"]}
    page = browser.new_page()
    try:
        page.goto(lab_site.address("accessibility", notebook), timeout=90_000)
        page.wait_for_function("() => window.jupyterapp", timeout=90_000)
        page.evaluate(RUN_ALL_IN_LAB)
        wait_until_live(page, TREE_LESSON)
        page.wait_for_function(SCRIPT_READY, timeout=30_000)
        violations = audit(page, context)
        check_names(page, "jupyterlab 02", ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")
    finally:
        page.close()
    print(f"jupyterlab 02 cells: {sum(v['count'] for v in violations)} axe violations")
    assert violations == [], violations
