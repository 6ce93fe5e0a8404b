from newton import sqrt


def test_root_of_four():
    assert abs(sqrt(4) - 2) < 0.01


def test_root_of_two():
    assert abs(sqrt(2, 0.001) - 1.41421) < 0.001
