from graphkit import distance

CYCLE = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": []}


def test_unreachable_then_reachable():
    assert distance(CYCLE, "a", "z") == -1
    assert distance(CYCLE, "a", "d") == 3


def test_start_is_goal():
    assert distance(CYCLE, "a", "a") == 0


def test_one_step():
    assert distance(CYCLE, "c", "a") == 1
