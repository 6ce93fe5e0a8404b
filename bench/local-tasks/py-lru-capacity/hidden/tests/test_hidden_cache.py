from lrukit import LRUCache


def test_capacity_one_keeps_the_last_entry():
    cache = LRUCache(1)
    cache.put("a", 1)
    assert cache.get("a") == 1
    cache.put("b", 2)
    assert "a" not in cache and cache.get("b") == 2


def test_eviction_count_and_order():
    cache = LRUCache(3)
    for i, key in enumerate("abcd"):
        cache.put(key, i)
    assert "a" not in cache
    assert [k in cache for k in "bcd"] == [True, True, True]
    assert cache.stats().evictions == 1


def test_updating_a_key_does_not_evict():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 3)
    assert cache.get("a") == 3 and cache.get("b") == 2
    assert cache.stats().evictions == 0


def test_hit_rate():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.get("a")
    cache.get("zz")
    assert cache.stats().hit_rate == 0.5
