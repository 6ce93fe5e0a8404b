import pytest

from confparse import load_string
from confparse.entry import ConfigError


def test_sections_and_keys():
    cfg = load_string("[server]\nhost = example.org\nport = 8080\n")
    assert cfg["server"] == {"host": "example.org", "port": "8080"}


def test_comments_and_blank_lines_are_skipped():
    cfg = load_string("# top\n\n[a]\n; note\nx = 1\n")
    assert cfg["a"] == {"x": "1"}


def test_quoted_values_lose_their_quotes():
    assert load_string('[a]\nname = "Ann Lee"\n')["a"]["name"] == "Ann Lee"


def test_line_without_equals_is_an_error():
    with pytest.raises(ConfigError, match="line 2"):
        load_string("[a]\njust words\n")
