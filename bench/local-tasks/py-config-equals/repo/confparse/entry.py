"""One `key = value` line."""


class ConfigError(ValueError):
    pass


def parse_entry(number, line):
    if "=" not in line:
        raise ConfigError(f"line {number}: expected key = value, got {line!r}")
    parts = line.split("=")
    key = parts[0].strip()
    value = parts[1].strip()
    if not key:
        raise ConfigError(f"line {number}: empty key")
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return key, value
