from confparse import load_string


def test_url_with_query_is_kept_whole():
    cfg = load_string("[db]\nurl = postgres://app@db/main?sslmode=require\n")
    assert cfg["db"]["url"] == "postgres://app@db/main?sslmode=require"


def test_base64_padding_is_kept():
    assert load_string("token = abc==\n")["DEFAULT"]["token"] == "abc=="


def test_quoted_value_with_equals():
    assert load_string('[a]\nexpr = "x=1"\n')["a"]["expr"] == "x=1"


def test_plain_values_still_work():
    assert load_string("[a]\nhost = h\n")["a"]["host"] == "h"
