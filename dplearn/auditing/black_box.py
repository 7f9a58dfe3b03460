"""A black-box attacker on lesson 11's trained model, and the one-run audit of it.

The attacker sees only the final model of lesson 11's private training and scores a canary
example by minus its loss (a model that saw the canary fits it better):
``black_box_canary_scores`` trains ``trials`` models with the canary and as many without.
``one_run_audit`` puts m canaries into ONE run, each with probability 1/2, and bounds
epsilon from its guesses (Steinke, Nasr & Jagielski, "Privacy auditing with one (1)
training run", NeurIPS 2023). ``loss_threshold_scores`` is the same loss attack on the
model's ordinary examples, private or not (Yeom, Giacomelli, Fredrikson & Jha, "Privacy
risk in machine learning: analyzing the connection to overfitting", CSF 2018).

Stored scores: lesson 14's 12,000 black-box models (``STORED_SETTINGS``) are too many to
train in every process that shows the lesson. Their scores come with the package, in
``dplearn/data/black_box_scores.npz``, with the setting they belong to (trials, seed,
``LESSON11_RUN``, the split's seed); ``black_box_canary_scores`` reads them for exactly
those settings and trains the models for any other. After a change to the trainer, the
canaries, the run or the settings, write them again with

    python -m dplearn.auditing --write-scores

(``tests/test_auditing_scores.py`` trains them afresh and fails if the file differs.)

Taught in: 14-attack-the-model.ipynb
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from dplearn import _validation as check
from dplearn import training
from dplearn.auditing import _store
from dplearn.auditing._many_models import train_many as _train_many
from dplearn.auditing.lower_bounds import one_run_epsilon_lower_bound
from dplearn.auditing.scores import Scores

__all__ = [
    "TrainingRun",
    "LESSON11_RUN",
    "BLACK_BOX_SETTING",
    "BLACK_BOX_CALIBRATION_SETTING",
    "STORED_SETTINGS",
    "black_box_canary_scores",
    "write_stored_scores",
    "OneRunAudit",
    "one_run_audit",
    "loss_threshold_scores",
]


class TrainingRun(NamedTuple):
    """The setting of a DP-SGD training run of lesson 11's model (``dplearn.training``).

    Attributes:
      sampling_rate: q, the Poisson sampling rate.
      noise_multiplier: sigma.
      clip_norm: C.
      epochs: passes over the data; the run takes ceil(epochs / q) steps.
      learning_rate: the step size.
    """

    sampling_rate: float
    noise_multiplier: float
    clip_norm: float
    epochs: int
    learning_rate: float


#: Lesson 11's private run on the breast cancer data (expected batch 32 of its 427 training
#: examples, sigma 4, C 1, 30 epochs, step size 0.5), with its split seed.
LESSON11_RUN = TrainingRun(32 / 427, 4.0, 1.0, 30, 0.5)
_SPLIT_SEED = 2026


@functools.lru_cache(maxsize=1)
def _breast_cancer():
    return training.breast_cancer(rng=np.random.default_rng(_SPLIT_SEED))


def _canaries(data, count, rng):
    """Canary examples: far out (norm 8) in random directions of the features, each with a
    random label, so that only its own presence teaches the model its label."""
    directions = rng.standard_normal((count, data.dimension - 1))
    directions *= 8.0 / np.linalg.norm(directions, axis=1, keepdims=True)
    features = np.column_stack([directions, np.ones(count)])
    return features, (rng.random(count) < 0.5).astype(float)


def _losses(weights, features, labels):
    scores = weights @ features.T
    return np.logaddexp(0.0, scores) - labels * scores


@functools.lru_cache(maxsize=8)
def _black_box(trials, seed, run):
    stored = _stored_scores().get(_store.key(_setting(trials, seed, run)))
    if stored is not None:
        return stored
    return _train_black_box(trials, seed, run)


def _train_black_box(trials, seed, run):
    """(members' scores, non-members' scores): ``trials`` models trained with the canary,
    then as many without, all from one generator seeded with ``seed``."""
    rng = np.random.default_rng(seed)
    data = _breast_cancer()
    canary_features, canary_labels = _canaries(data, 1, rng)
    inside = np.zeros((2 * trials, 1), dtype=bool)
    inside[:trials] = True
    weights = _train_many(data, canary_features, canary_labels, inside, run, rng)
    scores = -_losses(weights, canary_features, canary_labels)[:, 0]
    return scores[:trials], scores[trials:]


#: (trials, seed) of lesson 14's black-box audit, and of the calibration runs that pick its
#: threshold: the figures and the notebook ask for these, and their scores are stored.
BLACK_BOX_SETTING = (5000, 1403)
BLACK_BOX_CALIBRATION_SETTING = (1000, 1404)
#: The settings whose scores come with the package.
STORED_SETTINGS = (BLACK_BOX_SETTING, BLACK_BOX_CALIBRATION_SETTING)


def _setting(trials, seed, run):
    """Everything the black-box scores depend on, as stored with them."""
    run = TrainingRun(*run)._asdict()
    return {"trials": int(trials), "seed": int(seed), "run": run, "split_seed": _SPLIT_SEED}


@functools.lru_cache(maxsize=1)
def _stored_scores():
    """The stored scores (none if the file is missing: then every setting is trained)."""
    path = _store.BLACK_BOX_PATH
    return _store.read(path) if path.exists() else {}


def write_stored_scores(path=_store.BLACK_BOX_PATH, settings=STORED_SETTINGS):
    """Trains the models of every (trials, seed) of ``settings`` afresh and writes their scores.

    The run is ``LESSON11_RUN``; each entry of the file holds its setting beside the scores.

    Args:
      path: the .npz file to write (the one stored with the package by default).
      settings: (trials, seed) pairs.
    """
    entries = []
    for trials, seed in settings:
        setting = _setting(trials, seed, LESSON11_RUN)
        entries.append((setting, *_train_black_box(trials, seed, LESSON11_RUN)))
    _store.write(path, entries)


def black_box_canary_scores(trials, *, seed, run=LESSON11_RUN):
    """Scores of a black-box attacker that sees only lesson 11's trained model.

    ``trials`` models are trained with a canary example and as many without; the score is
    minus the canary's loss on the final model (a model that saw the canary fits it
    better). Cached per setting; the
    settings of lesson 14 (``STORED_SETTINGS``) are read from the scores stored with the
    package, the same numbers without training (see the module's docstring).

    The canary lies far out (norm 8) in a random direction of the standardised features,
    with a random label. The models are lesson 11's private run (``LESSON11_RUN``) on its
    breast cancer split; each draws its own batches and noise. They are trained together
    (``_train_many``), far faster than one by one.

    Args:
      trials: a whole number in [1, 5000].
      seed: the seed of the runs' generator (a whole number).
      run: the training setting, ``LESSON11_RUN`` or one like it.

    Taught in: 14-attack-the-model.ipynb
    """
    trials = check.whole("trials", trials, minimum=1, maximum=5000)
    seed = check.whole("seed", seed, minimum=0)
    members, non_members = _black_box(trials, seed, TrainingRun(*run))
    return Scores(members.copy(), non_members.copy())


class OneRunAudit(NamedTuple):
    """The outcome of a one-run audit.

    Attributes:
      canaries: m, how many canaries were drawn (each put in with probability 1/2).
      guesses: r, how many the auditor guessed about.
      correct: v, how many of those guesses were right.
      epsilon: the lower bound (``one_run_epsilon_lower_bound``).
    """

    canaries: int
    guesses: int
    correct: int
    epsilon: float


@functools.lru_cache(maxsize=8)
def _one_run(canaries, seed, run):
    rng = np.random.default_rng(seed)
    data = _breast_cancer()
    features, labels = _canaries(data, canaries, rng)
    inside = rng.random((1, canaries)) < 0.5
    weights = _train_many(data, features, labels, inside, run, rng)
    return -_losses(weights, features, labels)[0], inside[0]


def one_run_audit(canaries, guesses, *, seed, confidence=0.95, run=LESSON11_RUN):
    """Steinke, Nasr & Jagielski's audit of ONE seeded run of lesson 11's model.

    m canaries, each in with probability 1/2; the r canaries with the most extreme scores
    are guessed (the r/2 best fitted "in", the r/2 worst fitted "out"); the bound at
    delta = 0.

    Taught in: 14-attack-the-model.ipynb
    """
    canaries = check.whole("canaries", canaries, minimum=2, maximum=2000)
    guesses = check.whole("guesses", guesses, minimum=2, maximum=canaries)
    seed = check.whole("seed", seed, minimum=0)
    scores, inside = _one_run(canaries, seed, TrainingRun(*run))
    order = np.argsort(scores)
    high = order[canaries - guesses // 2 :]
    low = order[: guesses - guesses // 2]
    correct = int(inside[high].sum() + (~inside[low]).sum())
    epsilon = one_run_epsilon_lower_bound(guesses, correct, 0.0, confidence)
    return OneRunAudit(canaries, guesses, correct, epsilon)


def loss_threshold_scores(weights, data):
    """Scores of the loss-threshold attack on a trained model's own training and test examples.

    Yeom, Giacomelli, Fredrikson & Jha, "Privacy risk in machine learning: analyzing the
    connection to overfitting", CSF 2018: a model fits the examples it was trained on
    better, so a low loss says "member". The members are the training examples, the
    non-members the held-out test examples; the score is minus the example's logistic loss.
    Yeom's attack says "member" when the loss is below the mean training loss, the
    threshold minus that mean on these scores (``audit_counts`` counts its guesses).

    Args:
      weights: a logistic regression's weights (``dplearn.training``'s runs give them).
      data: the ``Dataset`` it was trained on.

    Returns:
      ``Scores`` (training examples as members, test examples as non-members).

    Taught in: 14-attack-the-model.ipynb
    """
    weights = check.vector("weights", weights)
    if weights.size != data.dimension:
        raise ValueError(
            f"weights must have {data.dimension} entries (the data's features), got {weights.size}"
        )
    return Scores(
        -_losses(weights, data.train_features, data.train_labels),
        -_losses(weights, data.test_features, data.test_labels),
    )
