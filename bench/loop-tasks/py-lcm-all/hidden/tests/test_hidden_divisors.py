from numkit import lcm_all


def test_first_value_counts():
    assert lcm_all([7]) == 7
    assert lcm_all([9, 3]) == 9
    assert lcm_all([2, 3, 4, 5, 6]) == 60
