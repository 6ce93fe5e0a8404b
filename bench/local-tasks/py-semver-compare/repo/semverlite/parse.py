"""'1.2.3-rc.1' into its parts."""
import re
from dataclasses import dataclass

_PATTERN = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$")


@dataclass(frozen=True)
class Version:
    major: str
    minor: str
    patch: str
    pre: str | None = None


def parse(text):
    match = _PATTERN.match(text.strip())
    if not match:
        raise ValueError(f"not a version: {text!r}")
    major, minor, patch, pre = match.groups()
    return Version(major, minor, patch, pre)
