from datetime import date

from datekit.months import add_months
from datekit.schedule import monthly


def test_month_end_clamps_in_a_leap_year():
    assert monthly(date(2024, 1, 31), 3) == [date(2024, 1, 31), date(2024, 2, 29), date(2024, 3, 31)]


def test_month_end_clamps_in_a_common_year():
    assert add_months(date(2023, 1, 31), 1) == date(2023, 2, 28)


def test_thirty_day_months():
    assert add_months(date(2024, 5, 31), 1) == date(2024, 6, 30)
    assert add_months(date(2024, 3, 31), -1) == date(2024, 2, 29)


def test_ordinary_days_unchanged():
    assert add_months(date(2024, 3, 15), 1) == date(2024, 4, 15)
