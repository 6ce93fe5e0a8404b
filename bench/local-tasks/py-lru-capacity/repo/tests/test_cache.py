import pytest

from lrukit import LRUCache


def test_keeps_capacity_entries():
    cache = LRUCache(3)
    for key in "abc":
        cache.put(key, key.upper())
    assert len(cache) == 3
    assert cache.get("a") == "A"


def test_evicts_least_recently_used():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert "b" not in cache


def test_miss_returns_default():
    assert LRUCache(1).get("x", 7) == 7


def test_capacity_must_be_positive():
    with pytest.raises(ValueError):
        LRUCache(0)
