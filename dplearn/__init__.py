"""dplearn: exact numbers and live figures for lessons on differential privacy.

The package is in three layers; each imports only from the layers before it in this list
(``tests/test_repository.py`` and ``tests/test_structure.py`` check), and only public
names cross from one module to another. One line per public module, with its lessons.

The numbers (no plotting, no widgets):

Attacks and the definition

- ``attacks``: the differencing and reconstruction attacks on exact answers (lesson 00).
- ``randomized_response``: randomised response and what its reports tell (lesson 00).
- ``local_frequency``: frequency oracles for d categories under local noise (direct and
  unary encoding, local hashing), their exact variance and post-processing (lesson 17).

One release

- ``privacy_loss``: two neighbouring output distributions of one mechanism, the privacy
  loss L, delta(epsilon) and its inverse (lessons 01, 02, 03).
- ``sensitivity``: the l1 and l2 sensitivity of a query, by brute force over neighbours
  (lesson 04).
- ``local_sensitivity``: local and smooth sensitivity of an order statistic,
  propose-test-release and sample-and-aggregate (lesson 15).
- ``mechanisms``: the Laplace, Gaussian and geometric mechanisms and their samplers
  (lessons 05, 06, 07).
- ``calibration``: the noise scale or sigma for a budget (epsilon, delta, sensitivity)
  (lessons 05, 06).
- ``optimality``: the universal optimality of the geometric mechanism, by linear
  programming (lesson 05).
- ``floating_point``: why floating-point Laplace noise leaks, and exact integer samplers
  (lesson 07).

Many releases

- ``composition`` (a package): k releases, exactly, bounded, as privacy loss
  distributions and as trade-off curves; parallel composition and groups (lessons 08, 09,
  13).
- ``subsampling``: privacy amplification by Poisson subsampling (lessons 10, 11).
- ``renyi``: Rényi differential privacy and its conversion to (epsilon, delta) (lesson 11).
- ``accounting``: the privacy of a DP-SGD training run, by PLD or RDP (lesson 11).
- ``training``: a seeded DP-SGD run in numpy on a bundled data set (lesson 11).

Choosing, and answering many queries

- ``selection``: the exponential mechanism, report-noisy-max, permute-and-flip and a
  private median (lesson 12).
- ``zcdp``: zero-concentrated DP, one number rho for many selections (lesson 12).
- ``datasets``: small real data sets loaded from scikit-learn's copies (lesson 12).
- ``sparse_vector``: AboveThreshold, Sparse, and variants that are not private
  (lesson 13).

Releasing a table

- ``query_release``: workloads of linear queries and the matrix mechanism's exact error,
  the binary tree, the bias of clamping at zero, MWEM and synthetic rows (lesson 16).

Attacks on trained models

- ``auditing`` (a package): what (epsilon, delta) allows a membership attacker, attacks,
  and audits that bound epsilon from below (lesson 14).

The words:

- ``language``: ``set_language("zh")``, ``"ru"`` or ``"en"``, and the translations of the
  package's words from the gettext catalogs in locale/ (every lesson).

Shared by the numbers, private: ``_validation`` (the checks behind every "ValueError
naming the parameter"), ``_safe_side`` (the step that moves a floating-point answer to its
safe side) and ``_environment`` (whether a kernel runs in JupyterLab or under Voilà, for
the figures and the exercises).

The figures:

- ``figures`` (a package): the lessons' figures, one module per topic, each figure
  registered by its id in ``docs/figures.md`` with its module and class (every lesson).

The exercises:

- ``exercises`` (a package): the self-checking exercises, one bank per lesson, their
  answer boxes and the grader (every lesson).

Importing ``dplearn`` loads the four modules most lessons use: ``privacy_loss``,
``calibration``, ``mechanisms`` and ``composition``.
"""

from dplearn import calibration, composition, mechanisms, privacy_loss
from dplearn.language import set_language

__version__ = "0.1.0"

__all__ = [
    "calibration",
    "composition",
    "mechanisms",
    "privacy_loss",
    "set_language",
    "__version__",
]
