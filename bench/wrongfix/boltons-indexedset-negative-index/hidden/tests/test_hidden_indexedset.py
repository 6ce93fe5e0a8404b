# Inputs the visible tests do not try: sets of strings and of small or negative numbers,
# where the right answer follows list indexing.
import pytest

from boltons.setutils import IndexedSet


@pytest.mark.parametrize("items", [list("abcdef"), ["x"], [-3, -2, -1], [0.5, 1.5, 2.5], [(1,), (2,)]])
def test_every_index_agrees_with_a_list(items):
    iset = IndexedSet(items)
    for i in range(-len(items), len(items)):
        assert iset[i] == items[i]
    with pytest.raises(IndexError):
        iset[len(items)]
    with pytest.raises(IndexError):
        iset[-len(items) - 1]


def test_strings_after_removals():
    iset = IndexedSet("abcdefghij")
    iset.remove("c")
    ref = list("abdefghij")
    for i in range(-9, 9):
        assert iset[i] == ref[i]
    with pytest.raises(IndexError):
        iset[-10]
    assert iset.pop(-1) == "j"
    with pytest.raises(IndexError):
        iset.pop(-20)
    assert "d" in iset
