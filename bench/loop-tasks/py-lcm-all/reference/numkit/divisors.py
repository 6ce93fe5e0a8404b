def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def lcm(a, b):
    return a * b // gcd(a, b)


def lcm_all(values):
    """Least common multiple of every value (1 for none)."""
    result = 1
    for value in values:
        result = lcm(result, value)
    return result
