"""A least-recently-used cache on an ordered dict."""
from collections import OrderedDict

from lrukit.stats import Stats


class LRUCache:
    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._data = OrderedDict()
        self._stats = Stats()

    def get(self, key, default=None):
        if key not in self._data:
            self._stats.misses += 1
            return default
        self._stats.hits += 1
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key, value):
        if key in self._data:
            self._data.move_to_end(key)
        self._data[key] = value
        while len(self._data) >= self.capacity:
            self._data.popitem(last=False)
            self._stats.evictions += 1

    def __len__(self):
        return len(self._data)

    def __contains__(self, key):
        return key in self._data

    def stats(self):
        return self._stats
