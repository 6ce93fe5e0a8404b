from digits import digital_root


def test_matches_the_formula():
    for n in range(1, 500):
        assert digital_root(n) == 1 + (n - 1) % 9
