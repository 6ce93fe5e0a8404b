from bits import bitcount


def test_zero_has_no_bits():
    assert bitcount(0) == 0


def test_seven_bits_of_127():
    assert bitcount(127) == 7


def test_sparse_number():
    assert bitcount(128) == 1
