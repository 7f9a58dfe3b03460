"""dplearn: exact numbers and live figures for lessons on differential privacy.

The package is in three layers; each imports only from the layers above it in this list
(``tests/test_repository.py`` checks):

The numbers (no plotting):

- ``privacy_loss``: two neighbouring output distributions of one mechanism, the privacy
  loss L, delta(epsilon) and its inverse (lessons 01-03).
- ``sensitivity``: the l1 and l2 sensitivity of a query, by brute force over neighbours
  (lesson 04).
- ``mechanisms``: the Laplace, Gaussian and geometric mechanisms and their samplers
  (lessons 05-07).
- ``calibration``: the noise scale or sigma for a budget (epsilon, delta, sensitivity)
  (lessons 05, 06).
- ``optimality``: the universal optimality of the geometric mechanism, by linear
  programming (lesson 05).
- ``floating_point``: why floating-point Laplace noise leaks, and exact integer samplers
  (lesson 07).
- ``composition`` (a package): k releases, exactly, bounded, as privacy loss
  distributions and as trade-off curves (lessons 08, 09).
- ``attacks``: the differencing and reconstruction attacks on exact answers (lesson 00).
- ``randomized_response``: randomised response and what its reports tell (lesson 00).
- ``subsampling``: privacy amplification by Poisson subsampling (lesson 10).
- ``renyi``: Rényi differential privacy and its conversion to (epsilon, delta) (lesson 11).
- ``accounting``: the privacy of a DP-SGD training run, by PLD or RDP (lesson 11).
- ``training``: a seeded DP-SGD run in numpy on a bundled data set (lesson 11).
- ``_validation``: the checks behind every "ValueError naming the parameter";
  ``_safe_side``: the step that moves a floating-point answer to its safe side;
  ``_many_models``: many DP-SGD runs at once, for lesson 14's audits; ``_stored_scores``:
  attack scores stored with the package (``dplearn/data``), with the setting of each.

Then ``figures`` (the lessons' figures, by their ids in ``docs/figures.md``), and
``exercises`` (the self-checking exercises, one bank per lesson).

Importing ``dplearn`` loads the four modules most lessons use: ``privacy_loss``,
``calibration``, ``mechanisms`` and ``composition``.
"""

from dplearn import calibration, composition, mechanisms, privacy_loss

__version__ = "0.1.0"

__all__ = ["calibration", "composition", "mechanisms", "privacy_loss", "__version__"]
