def bitcount(n):
    """Number of 1-bits in the binary form of the non-negative integer n.

    Clears the lowest set bit until none is left (Kernighan's way).
    """
    count = 0
    while n:
        n ^= n - 1
        count += 1
    return count
