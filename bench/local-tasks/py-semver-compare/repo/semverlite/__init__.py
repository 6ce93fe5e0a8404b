from semverlite.compare import compare, latest
from semverlite.parse import Version, parse

__all__ = ["Version", "compare", "latest", "parse"]
