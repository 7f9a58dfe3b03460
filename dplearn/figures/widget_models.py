"""Layout and style models that the widgets of a page share.

In ipywidgets every widget brings a layout model of its own, and most a style model
too. A page that Voilà serves fetches the state of every model from the kernel and
builds each one before the page is live, and these were more than half of a lesson's
models (lesson 02: 167 layouts and 98 styles of 432). A widget whose layout or style is
set once, when it is made, takes the one model of the kernel with those traits instead.
A widget whose layout changes later (a control hidden or shown, the table opened) keeps
one of its own: a change to a shared model would change every widget that shows it.
"""

#: (model class, traits as sorted pairs) -> the shared model, made on first use.
_SHARED = {}


def _shared(kind, traits):
    key = (kind, tuple(sorted(traits.items())))
    if key not in _SHARED:
        _SHARED[key] = kind(**traits)
    return _SHARED[key]


def layout(**traits):
    """The kernel's one ``ipywidgets.Layout`` with these traits (never change it)."""
    import ipywidgets as widgets

    return _shared(widgets.Layout, traits)


def style(widget_class, **traits):
    """The kernel's one style model for widgets of ``widget_class`` (never change it).

    Args:
      widget_class: the widget's class, such as ``ipywidgets.FloatSlider``; the model is
        of the style class its ``style`` trait holds (every slider's is ``SliderStyle``).
      **traits: the style's traits, such as ``description_width="8em"``.
    """
    return _shared(widget_class.class_traits()["style"].klass, traits)


def shared():
    """[(model, traits it was made with)] for every shared model made so far."""
    return [(model, dict(pairs)) for (_kind, pairs), model in _SHARED.items()]
