from .divisors import gcd, lcm, lcm_all
