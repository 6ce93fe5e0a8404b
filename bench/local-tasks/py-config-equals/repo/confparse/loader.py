from confparse.entry import ConfigError, parse_entry
from confparse.lines import meaningful_lines


def load_string(text):
    sections = {}
    current = sections.setdefault("DEFAULT", {})
    for number, line in meaningful_lines(text):
        if line.startswith("[") and line.endswith("]"):
            name = line[1:-1].strip()
            if not name:
                raise ConfigError(f"line {number}: empty section name")
            current = sections.setdefault(name, {})
            continue
        key, value = parse_entry(number, line)
        current[key.lower()] = value
    return sections
