"""What an attacker can do against (epsilon, delta), and what an attack proves about epsilon.

A membership attacker sees what a mechanism released (published means, a trained model) and
tests "was this example in the data?". Differential privacy caps its true-positive rate at
each false-positive rate; auditing turns this around and bounds epsilon from below by what
an attack achieved. One module per job (``from dplearn import auditing`` gives them all):

- ``limits``: what (epsilon, delta)-DP and what a DP-SGD run allow an attacker
  (``max_true_positive_rate``, ``dp_sgd_privacy_profile``, ``dp_sgd_max_true_positive_rate``).
- ``lower_bounds``: what an attack's counts prove about epsilon (``clopper_pearson_upper``,
  ``epsilon_lower_bound``, ``one_run_epsilon_lower_bound``).
- ``scores``: attack scores, their ROC, how far an empirical ROC strays from the exact
  test's curve, and an audit that picks a threshold on calibration runs (``Scores``,
  ``roc``, ``true_positive_rate_at``, ``sampling_interval``, ``audit_counts``, ``audit``).
- ``attacks``: seeded attacks on published means and on every step of a DP-SGD run
  (``tracing_scores``, ``gradient_canary_scores``).
- ``black_box``: the attacker that sees only lesson 11's trained model, its stored scores,
  the one-run audit and the loss-threshold attack on the model's own examples
  (``black_box_canary_scores``, ``one_run_audit``, ``loss_threshold_scores``,
  ``LESSON11_RUN``);
  ``python -m dplearn.auditing --write-scores`` trains and stores those scores again.

Taught in: 14-attack-the-model.ipynb
"""

from dplearn.auditing.attacks import gradient_canary_scores, tracing_scores
from dplearn.auditing.black_box import (
    BLACK_BOX_CALIBRATION_SETTING,
    BLACK_BOX_SETTING,
    LESSON11_RUN,
    STORED_SETTINGS,
    OneRunAudit,
    TrainingRun,
    black_box_canary_scores,
    loss_threshold_scores,
    one_run_audit,
    write_stored_scores,
)
from dplearn.auditing.limits import (
    dp_sgd_max_true_positive_rate,
    dp_sgd_privacy_profile,
    max_true_positive_rate,
)
from dplearn.auditing.lower_bounds import (
    clopper_pearson_upper,
    epsilon_lower_bound,
    one_run_epsilon_lower_bound,
)
from dplearn.auditing.scores import (
    AUDIT_FALSE_POSITIVE_RATES,
    Audit,
    Scores,
    audit,
    audit_counts,
    roc,
    sampling_interval,
    true_positive_rate_at,
)

__all__ = [
    "max_true_positive_rate",
    "dp_sgd_privacy_profile",
    "dp_sgd_max_true_positive_rate",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "one_run_epsilon_lower_bound",
    "Scores",
    "roc",
    "true_positive_rate_at",
    "sampling_interval",
    "audit_counts",
    "audit",
    "Audit",
    "AUDIT_FALSE_POSITIVE_RATES",
    "tracing_scores",
    "gradient_canary_scores",
    "black_box_canary_scores",
    "write_stored_scores",
    "one_run_audit",
    "OneRunAudit",
    "loss_threshold_scores",
    "TrainingRun",
    "LESSON11_RUN",
    "BLACK_BOX_SETTING",
    "BLACK_BOX_CALIBRATION_SETTING",
    "STORED_SETTINGS",
]
