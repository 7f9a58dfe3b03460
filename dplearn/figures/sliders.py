"""Controls whose slider readout fits its box and shows the value the figure uses.

The default readout prints four significant digits in fixed notation, so the browser
writes delta = 1e-5 as "0.00001000", wider than the readout's box. ``ExponentControl``
shows such values in e-notation ("1.0e-5"), as many digits as the slider's steps set.

Taught in: 06-calibrate-gaussian-noise.ipynb, 08-add-up-privacy-losses.ipynb
"""

from __future__ import annotations

from dataclasses import dataclass

from dplearn.figures.controls import Control

__all__ = ["ExponentControl", "exponent_control", "READOUT_CHARACTERS"]

#: The widest readout (characters) a slider's box holds at the lessons' font size.
READOUT_CHARACTERS = 8


@dataclass(frozen=True)
class ExponentControl(Control):
    """A (log) slider whose readout is in e-notation with ``digits`` decimals."""

    digits: int = 2

    @property
    def readout_format(self):
        """The slider's readout format: e-notation with ``digits`` decimals."""
        return f".{self.digits}e"

    def slider(self, value, name=None):
        """The slider of ``Control``, read out in e-notation."""
        slider = super().slider(value, name)
        slider.readout_format = self.readout_format
        return slider


def exponent_control(control, digits=2):
    """The same control (label, range, log, description), read out in e-notation."""
    return ExponentControl(
        control.label,
        control.minimum,
        control.maximum,
        log=control.log,
        integer=control.integer,
        step=control.step,
        description=control.description,
        digits=digits,
    )
