from gradebook import class_summary, rank_students

STUDENTS = {"ada": [95, 91], "bob": [72, 78], "cy": [85, 81]}
WEIGHTS = [1, 1]


def test_class_summary_letters():
    summary = class_summary(STUDENTS, WEIGHTS)
    assert summary["letters"] == {"A": 1, "C": 1, "B": 1}
    assert summary["highest"] == 93


def test_rank_students_best_first():
    assert rank_students(STUDENTS, WEIGHTS) == ["ada", "cy", "bob"]
