from .root import sqrt
