from moneyfmt import format_money


def test_negative_with_full_groups():
    assert format_money(-123456) == "-$123,456.00"


def test_negative_with_partial_group():
    assert format_money(-1234.5) == "-$1,234.50"


def test_negative_small_and_yen():
    assert format_money(-5, "GBP") == "-£5.00"
    assert format_money(-1500, "JPY") == "-¥1,500"


def test_positive_unchanged():
    assert format_money(1234567.891) == "$1,234,567.89"
