from sortedkit import search


def test_every_position():
    items = [2, 4, 6, 8, 10, 12]
    for i, value in enumerate(items):
        assert search(items, value) == i


def test_single_element():
    assert search([7], 7) == 0
    assert search([7], 8) == -1
