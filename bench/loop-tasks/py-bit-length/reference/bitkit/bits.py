def bit_length(n):
    """Number of bits needed to write the non-negative integer n (0 for 0)."""
    length = 0
    while n > 0:
        n >>= 1
        length += 1
    return length


def fits(n, bits):
    return bit_length(n) <= bits
