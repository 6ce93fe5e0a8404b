from .count import bitcount
