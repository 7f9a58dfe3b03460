"""Colours that mean the same thing in every lesson's figures.

A reader who has learnt in lesson 02 that red marks the bad events (privacy loss above
epsilon) and purple the area delta sees the same colours for the same things in lessons
08 and 09. Colours that belong to one topic stay in its module.

Taught in: 02-see-what-delta-means.ipynb, 08-add-up-privacy-losses.ipynb
"""

__all__ = ["AREA_COLOR", "BAD_COLOR"]

#: The bad events: outputs whose privacy loss exceeds epsilon, and epsilon itself.
BAD_COLOR = "tab:red"
#: The area delta(epsilon) = E[max(0, 1 - e^(epsilon - L))].
AREA_COLOR = "tab:purple"
