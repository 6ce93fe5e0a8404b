from numkit import gcd, lcm, lcm_all


def test_gcd():
    assert gcd(12, 18) == 6
    assert gcd(7, 5) == 1


def test_lcm():
    assert lcm(4, 6) == 12


def test_lcm_all():
    assert lcm_all([3, 4, 5]) == 60


def test_lcm_all_empty():
    assert lcm_all([]) == 1
