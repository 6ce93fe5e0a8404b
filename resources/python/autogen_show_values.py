"""pytest plugin loaded by autogen-bot (`-p autogen_show_values`) when a failing test's
assertion sits in a helper module pytest does not rewrite (a repository's own
`assert_equal` in test/common.py), so the failure shows no values.

- $AUTOGEN_REWRITE_MODULES: comma-separated module names whose asserts pytest rewrites
  (pytest.register_assert_rewrite), so the rerun's failure shows expected and actual.

It changes nothing else about how the repository's tests run.
"""
import os

import pytest

_NAMES = [n for n in os.environ.get("AUTOGEN_REWRITE_MODULES", "").split(",") if n and all(p.isidentifier() for p in n.split("."))]
if _NAMES:
    pytest.register_assert_rewrite(*_NAMES)
