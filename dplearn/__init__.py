"""dplearn: exact numbers and live figures for lessons on differential privacy.

The numerical core (no plotting) is ``dplearn.privacy_loss``, ``dplearn.calibration``
and ``dplearn.mechanisms``; the figures of the lessons build on it.
"""

from dplearn import calibration, mechanisms, privacy_loss

__version__ = "0.1.0"

__all__ = ["calibration", "mechanisms", "privacy_loss", "__version__"]
