from lrukit.cache import LRUCache

__all__ = ["LRUCache"]
