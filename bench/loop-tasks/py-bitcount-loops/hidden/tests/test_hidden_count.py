from bits import bitcount


def test_matches_bin_count():
    for n in range(0, 500):
        assert bitcount(n) == bin(n).count("1")
