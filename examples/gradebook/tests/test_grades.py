import pytest

from gradebook import letter_grade, weighted_average


def test_weighted_average_uses_the_weights():
    assert weighted_average([100, 50], [3, 1]) == 87.5


def test_weighted_average_rejects_mismatched_lengths():
    with pytest.raises(ValueError):
        weighted_average([1, 2], [1])


def test_letter_grade_inside_bands():
    assert letter_grade(95) == "A"
    assert letter_grade(85) == "B"
    assert letter_grade(42) == "F"


def test_letter_grade_at_the_cutoff():
    assert letter_grade(90) == "A"
    assert letter_grade(80) == "B"
