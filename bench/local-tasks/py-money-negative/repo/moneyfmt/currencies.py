"""Symbols and minor units of the currencies we print."""

CURRENCIES = {
    "USD": ("$", 2),
    "EUR": ("€", 2),
    "GBP": ("£", 2),
    "JPY": ("¥", 0),
}


def currency(code):
    try:
        return CURRENCIES[code.upper()]
    except KeyError:
        raise ValueError(f"unknown currency {code!r}") from None
