"""What the lesson pages add for screen readers and keyboards, in Voilà and JupyterLab.

ipywidgets has no way to set ARIA attributes from Python, and the slider it draws
(noUiSlider) gives its handle ``role="slider"`` and no name (ipywidgets issue #2650):
a screen reader says "slider, 0.24" without a word of what it sets, and for a log
slider the number is the exponent. A small script, shown with the kernel's first figure
(``show_script_once``), fills in what is missing, for every widget of the page:

- every slider handle is named by its visible label (``aria-labelledby``) and reads
  out the value its readout shows (``aria-valuetext``);
- a row of toggle buttons is a group named by its label, each button with its state
  (``aria-pressed``);
- every figure of an ``Exploration`` is an image (``role="img"``) named by its id and
  title and described by its ``description()`` (kept in a visually hidden text the
  kernel updates); when a control moves, a polite live region says the new
  description once the figure has been still for ``QUIET_MS`` (a dragged slider
  speaks once, not on every step);
- links in the prose are underlined, so that they stand out without colour.

Both front ends run the script: Voilà and JupyterLab render ``application/javascript``
outputs of the kernel (they are trusted). Where no script runs (a static copy of the
page), the figures carry their description as the image's alt text instead.

Taught in: every lesson notebook (each figure and answer box shows it).
"""

from __future__ import annotations

__all__ = ["QUIET_MS", "VISUALLY_HIDDEN", "script", "show_script_once"]

#: How long a figure must stay still before its new description is read out (ms).
QUIET_MS = 1000

#: Class of text that is there for screen readers only (the usual clip pattern).
VISUALLY_HIDDEN = "dplearn-visually-hidden"

_STYLE = (
    f".{VISUALLY_HIDDEN}{{position:absolute!important;width:1px!important;"
    "height:1px!important;padding:0!important;margin:-1px!important;overflow:hidden!important;"
    "clip:rect(0,0,0,0)!important;white-space:nowrap!important;border:0!important}"
    # Links in prose differ from the text around them by more than colour.
    ".jp-RenderedMarkdown a,.jp-RenderedHTMLCommon a{text-decoration:underline!important}"
)

_SCRIPT = """
(() => {
  if (window.dplearnPageAccess) { window.dplearnPageAccess.scan(); return; }
  const QUIET_MS = %(quiet)d;
  let counter = 0;
  const idOf = (element) => element.id || (element.id = `dplearn-access-${++counter}`);
  const done = (element, key) => {
    if (element.dataset[key]) return true;
    element.dataset[key] = '1';
    return false;
  };
  const setIfChanged = (element, name, value) => {
    if (element.getAttribute(name) !== value) element.setAttribute(name, value);
  };

  const style = document.createElement('style');
  style.textContent = %(style)s;
  document.head.appendChild(style);

  // A slider: its handle named by the label beside it, its value as the readout says it.
  function slider(widget) {
    const label = widget.querySelector(':scope > .widget-label');
    const handle = widget.querySelector('.noUi-handle');
    const readout = widget.querySelector(':scope > .widget-readout');
    if (!handle || done(handle, 'dplearnAccess')) return;
    if (label && label.textContent.trim()) handle.setAttribute('aria-labelledby', idOf(label));
    if (!readout) return;
    const follow = () => setIfChanged(handle, 'aria-valuetext', readout.textContent.trim());
    follow();
    // noUiSlider rewrites aria-valuetext on every move (a log slider's exponent).
    new MutationObserver(follow).observe(handle, {attributes: true,
                                                   attributeFilter: ['aria-valuetext']});
    new MutationObserver(follow).observe(readout, {childList: true, characterData: true,
                                                    subtree: true});
  }

  // Toggle buttons: a group named by its label, each button saying whether it is chosen.
  function toggleButtons(widget) {
    if (done(widget, 'dplearnAccess')) return;
    const label = widget.querySelector(':scope > .widget-label');
    const buttons = Array.from(widget.querySelectorAll('button'));
    const group = buttons.length ? buttons[0].parentElement : null;
    if (group && label && label.textContent.trim()) {
      group.setAttribute('role', 'group');
      group.setAttribute('aria-labelledby', idOf(label));
    }
    const follow = () => buttons.forEach((button) => setIfChanged(
      button, 'aria-pressed', String(button.classList.contains('mod-active'))));
    follow();
    buttons.forEach((button) => new MutationObserver(follow).observe(
      button, {attributes: true, attributeFilter: ['class']}));
  }

  // A toggle button (the figure's "Table"): its state, as the toggle buttons say theirs.
  function toggleButton(button) {
    if (done(button, 'dplearnAccess')) return;
    const follow = () => setIfChanged(button, 'aria-pressed',
                                      String(button.classList.contains('mod-active')));
    follow();
    new MutationObserver(follow).observe(button, {attributes: true, attributeFilter: ['class']});
  }

  // A figure: an image named by its title, described by its description; a live region
  // reads the new description once the figure has been still for QUIET_MS.
  function exploration(box) {
    const figure = box.querySelector('.jupyter-matplotlib, .dplearn-static-figure');
    const name = box.querySelector('.dplearn-figure-name');
    const description = box.querySelector('.dplearn-figure-description');
    if (!figure || !name || !description || done(box, 'dplearnAccess')) return;
    figure.setAttribute('role', 'img');
    figure.setAttribute('aria-labelledby', idOf(name));
    figure.setAttribute('aria-describedby', idOf(description));
    const live = document.createElement('div');
    live.className = '%(hidden)s dplearn-figure-live';
    live.setAttribute('aria-live', 'polite');
    box.appendChild(live);
    let timer = null;
    let said = description.textContent.trim();
    new MutationObserver(() => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const text = description.textContent.trim();
        if (text && text !== said) { said = text; live.textContent = text; }
      }, QUIET_MS);
    }).observe(description, {childList: true, characterData: true, subtree: true});
  }

  function scan() {
    document.querySelectorAll('.widget-slider').forEach(slider);
    document.querySelectorAll('.widget-toggle-buttons').forEach(toggleButtons);
    document.querySelectorAll('.dplearn-table-toggle').forEach(toggleButton);
    document.querySelectorAll('.dplearn-exploration').forEach(exploration);
  }
  let pending = false;
  new MutationObserver(() => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; scan(); });
  }).observe(document.body, {childList: true, subtree: true});
  window.dplearnPageAccess = {scan};
  scan();
})();
"""


_shown = False


def show_script_once():
    """Displays the page script with the kernel's first figure, and never again.

    Voilà gives every page a kernel of its own, and a JupyterLab page keeps a script it
    has run: once per kernel is enough, and fewer outputs leave less for a page to load.
    """
    global _shown
    if not _shown:
        from IPython.display import display

        display(script())
        _shown = True


def script():
    """The page script as an ``IPython.display.Javascript`` output (see the module doc)."""
    import json

    from IPython.display import Javascript

    return Javascript(
        _SCRIPT % {"quiet": QUIET_MS, "style": json.dumps(_STYLE), "hidden": VISUALLY_HIDDEN}
    )
