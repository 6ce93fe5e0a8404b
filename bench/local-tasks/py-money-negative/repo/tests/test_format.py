from moneyfmt import format_money


def test_grouping():
    assert format_money(1234567.891) == "$1,234,567.89"


def test_small_amounts():
    assert format_money(5) == "$5.00"
    assert format_money(0.005) == "$0.01"


def test_other_currencies():
    assert format_money(1500, "eur") == "€1,500.00"
    assert format_money(1500, "JPY") == "¥1,500"
