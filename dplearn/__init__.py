"""dplearn: exact numbers and live figures for lessons on differential privacy.

The numerical core (no plotting) is ``dplearn.privacy_loss``, ``dplearn.calibration``,
``dplearn.mechanisms`` and ``dplearn.composition``; the figures of the lessons build on it.
"""

from dplearn import calibration, composition, mechanisms, privacy_loss

__version__ = "0.1.0"

__all__ = ["calibration", "composition", "mechanisms", "privacy_loss", "__version__"]
