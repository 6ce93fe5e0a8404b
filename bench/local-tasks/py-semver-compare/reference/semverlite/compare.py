"""Ordering of versions: numbers first, then a pre-release sorts before its release."""
from functools import cmp_to_key

from semverlite.parse import parse


def _cmp(a, b):
    return (a > b) - (a < b)


def compare(left, right):
    a, b = parse(left), parse(right)
    for x, y in ((a.major, b.major), (a.minor, b.minor), (a.patch, b.patch)):
        if x != y:
            return _cmp(int(x), int(y))
    if a.pre == b.pre:
        return 0
    if a.pre is None:
        return 1
    if b.pre is None:
        return -1
    return _cmp(a.pre, b.pre)


def latest(versions):
    return max(versions, key=cmp_to_key(compare))
