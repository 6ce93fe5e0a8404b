# Inputs the visible tests do not try: a default that is itself reversible, longer
# iterables, the ordinary sequence and iterator paths.
import pytest

import more_itertools as mi


class ReversedIsNone:
    __reversed__ = None

    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)


def test_reversed_none_with_a_list_default():
    assert mi.last(ReversedIsNone([1]), []) == 1


def test_reversed_none_with_a_tuple_default():
    assert mi.last(ReversedIsNone([1, 2, 3]), ()) == 3


def test_reversed_none_empty_gives_the_default():
    assert mi.last(ReversedIsNone([]), "d") == "d"


def test_reversed_none_empty_without_default_raises():
    with pytest.raises(ValueError):
        mi.last(ReversedIsNone([]))


def test_ordinary_inputs():
    assert mi.last([0, 1, 2]) == 2
    assert mi.last(iter([4, 5])) == 5
    assert mi.last({"a": 1, "b": 2}.keys(), []) == "b"
    assert mi.last([], "x") == "x"
