"""Thousands separators."""


def group_digits(digits, sep=","):
    """'1234567' -> '1,234,567'."""
    groups = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    groups.insert(0, digits)
    return sep.join(groups)
