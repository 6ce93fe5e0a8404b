from bitkit import bit_length, fits


def test_zero():
    assert bit_length(0) == 0


def test_powers_of_two():
    assert bit_length(8) == 4
    assert bit_length(1) == 1


def test_fits():
    assert fits(255, 8)
    assert not fits(256, 8)
