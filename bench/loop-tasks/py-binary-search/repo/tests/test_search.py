from sortedkit import search


def test_finds_in_the_middle():
    assert search([1, 3, 5, 7, 9], 5) == 2


def test_missing_is_minus_one():
    assert search([1, 3, 5], 4) == -1
    assert search([], 4) == -1


def test_finds_the_last():
    assert search([1, 3, 5], 5) == 2
