"""Per-student grading: the weighted average of the assessments and its letter."""

CUTOFFS = [(90, "A"), (80, "B"), (70, "C"), (60, "D")]


def weighted_average(scores, weights):
    """Average of `scores` weighted by `weights` (both lists of the same length)."""
    if len(scores) != len(weights):
        raise ValueError("scores and weights must have the same length")
    total_weight = sum(weights)
    if total_weight == 0:
        raise ValueError("weights must not all be zero")
    return sum(s * w for s, w in zip(scores, weights)) / total_weight


def letter_grade(average):
    """The letter for an average: 90 and above is an A, 80 and above a B, and so on."""
    for cutoff, letter in CUTOFFS:
        if average > cutoff:
            return letter
    return "F"
