from datetime import date

from datekit.months import add_months
from datekit.schedule import monthly


def test_add_months_forward_and_back():
    assert add_months(date(2024, 3, 15), 1) == date(2024, 4, 15)
    assert add_months(date(2024, 3, 15), -3) == date(2023, 12, 15)


def test_add_months_crosses_years():
    assert add_months(date(2023, 11, 2), 14) == date(2025, 1, 2)


def test_monthly_from_the_15th():
    assert monthly(date(2024, 1, 15), 3) == [date(2024, 1, 15), date(2024, 2, 15), date(2024, 3, 15)]


def test_monthly_zero():
    assert monthly(date(2024, 1, 15), 0) == []
