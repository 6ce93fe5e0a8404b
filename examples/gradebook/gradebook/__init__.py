"""A small gradebook: weighted course averages, letter grades and class statistics."""
from .grades import letter_grade, weighted_average
from .stats import class_summary, rank_students

__all__ = ["letter_grade", "weighted_average", "class_summary", "rank_students"]
