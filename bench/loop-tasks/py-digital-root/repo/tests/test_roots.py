from digits import digital_root


def test_one_digit():
    assert digital_root(7) == 7


def test_two_rounds():
    assert digital_root(9875) == 2


def test_ten():
    assert digital_root(10) == 1
