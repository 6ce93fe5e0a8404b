"""Recurring dates built from a start date."""
from datekit.months import add_months


def monthly(start, count):
    """`count` due dates, one a month, the first on `start`.

    Each date is computed from `start` (not from the previous one) so a short month does not
    pull later dates earlier.
    """
    if count < 0:
        raise ValueError("count must not be negative")
    return [add_months(start, n) for n in range(count)]
