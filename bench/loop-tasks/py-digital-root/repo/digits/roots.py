def digit_sum(n):
    total = 0
    while n > 0:
        total += n % 10
        n //= 10
    return total


def digital_root(n):
    """Sum the digits of n until one digit is left."""
    while n > 10:
        n = digit_sum(n)
    return n
