"""An amount as people read it on an invoice."""
from decimal import ROUND_HALF_UP, Decimal

from moneyfmt.currencies import currency
from moneyfmt.grouping import group_digits


def format_money(amount, code="USD"):
    symbol, minor = currency(code)
    quantum = Decimal(1).scaleb(-minor)
    value = Decimal(str(amount)).quantize(quantum, rounding=ROUND_HALF_UP)
    sign = "-" if value < 0 else ""
    whole, _, fraction = f"{abs(value):f}".partition(".")
    text = group_digits(whole)
    if fraction:
        text = f"{text}.{fraction}"
    return f"{sign}{symbol}{text}"
