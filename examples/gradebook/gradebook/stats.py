"""Whole-class views: a summary of the averages and a ranking."""
from .grades import letter_grade, weighted_average


def class_summary(students, weights):
    """Mean, highest and lowest average, and how many students got each letter."""
    averages = [weighted_average(scores, weights) for scores in students.values()]
    letters = {}
    for average in averages:
        letter = letter_grade(average)
        letters[letter] = letters.get(letter, 0) + 1
    return {
        "mean": sum(averages) / len(averages),
        "highest": max(averages),
        "lowest": min(averages),
        "letters": letters,
    }


def rank_students(students, weights):
    """Names ordered from the best average to the worst; ties keep alphabetical order."""
    averages = {name: weighted_average(scores, weights) for name, scores in students.items()}
    return sorted(averages, key=lambda name: (-averages[name], name))
