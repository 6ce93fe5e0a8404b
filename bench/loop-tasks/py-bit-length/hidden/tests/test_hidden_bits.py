from bitkit import bit_length


def test_matches_int_bit_length():
    for n in range(0, 300):
        assert bit_length(n) == n.bit_length()
