from confparse.loader import load_string

__all__ = ["load_string"]
