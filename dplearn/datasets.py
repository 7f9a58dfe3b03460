"""Small real data sets the lessons use, loaded from the copies scikit-learn ships.

Nothing is downloaded: scikit-learn installs these files with itself. The breast cancer
data of lesson 11's training, split and standardised, is ``dplearn.training.breast_cancer``.

Taught in: 12-choose-privately.ipynb
"""

from __future__ import annotations

import numpy as np

__all__ = ["sepal_lengths"]


def sepal_lengths():
    """The sepal lengths in cm of Fisher's 150 iris flowers, measured to 0.1 cm.

    A small real column (median 5.8) for the private median of lesson 12; scikit-learn
    ships it (``sklearn.datasets.load_iris``).

    Returns:
      A float array of 150 lengths.

    Taught in: 12-choose-privately.ipynb
    """
    from sklearn.datasets import load_iris

    return np.array(load_iris().data[:, 0], dtype=float)
