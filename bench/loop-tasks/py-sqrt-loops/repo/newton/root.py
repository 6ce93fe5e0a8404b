def sqrt(x, epsilon=0.01):
    """Square root of x > 0 by Newton's method, to within epsilon of x when squared."""
    approx = x / 2
    while abs(x - approx) > epsilon:
        approx = 0.5 * (approx + x / approx)
    return approx
