from semverlite import compare, latest


def test_two_digit_parts():
    assert compare("1.10.0", "1.9.0") == 1
    assert compare("0.0.10", "0.0.9") == 1
    assert compare("10.0.0", "9.99.99") == 1


def test_latest_of_many():
    assert latest(["0.9.1", "0.10.0", "0.2.11"]) == "0.10.0"


def test_prerelease_still_before_release():
    assert compare("1.10.0-rc.1", "1.10.0") == -1
    assert compare("1.10.0-rc.1", "1.9.0") == 1


def test_equal():
    assert compare("v1.10.0", "1.10.0") == 0
