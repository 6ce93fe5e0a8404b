from newton import sqrt


def test_many_roots():
    for x in [0.25, 1, 3, 10, 144, 1000.5]:
        assert abs(sqrt(x, 0.0001) ** 2 - x) < 0.0001
