import pytest

from semverlite import compare, latest, parse


def test_parse():
    v = parse("v1.2.3-rc.1")
    assert (v.major, v.minor, v.patch, v.pre) == ("1", "2", "3", "rc.1")


def test_parse_rejects_garbage():
    with pytest.raises(ValueError):
        parse("1.2")


def test_simple_order():
    assert compare("1.2.3", "1.2.4") == -1
    assert compare("2.0.0", "1.9.9") == 1
    assert compare("1.0.0", "1.0.0") == 0


def test_prerelease_before_release():
    assert compare("1.0.0-rc.1", "1.0.0") == -1


def test_minor_ten_is_newer():
    assert latest(["1.9.0", "1.10.0"]) == "1.10.0"
