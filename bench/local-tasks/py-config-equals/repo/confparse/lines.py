"""Turns raw text into meaningful lines: comments and blank lines dropped, whitespace trimmed."""


def meaningful_lines(text):
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        yield number, line
