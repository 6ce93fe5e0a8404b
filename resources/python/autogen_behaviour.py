"""Behaviour harness run by autogen-bot inside the sandbox (never on the host):
`python autogen_behaviour.py REQUEST.json RESULT.json`.

REQUEST: {"module": "pkg.mod", "calls": [{"call": "f(1)", "expected": "2" | null}], "limit": seconds}.
Imports the module from the working directory (and ./src), evaluates each call
expression with the module's names in scope and a time limit, and writes for each call
its output: {"kind": "value", "repr": ...}, {"kind": "raised", "type": ..., "message": ...}
or {"kind": "timeout"}; for an expected expression, its own value the same way
("raises Name" is an expected exception). The calls are model-written: they are
expressions only (compile mode "eval"), and the sandbox is what contains them.
"""
import builtins
import importlib
import io
import itertools
import json
import os
import re
import signal
import sys

REPR_CAP = 400
MESSAGE_CAP = 300
ITEMS_CAP = 200
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


class _CallTimeout(BaseException):
    pass


def _alarm(_signum, _frame):
    raise _CallTimeout()


def _cap(text, cap):
    return text if len(text) <= cap else text[:cap] + "…[cut]"


def _describe(value):
    # A generator's repr names only its address: its items are its output.
    if hasattr(value, "__next__") and not isinstance(value, (str, bytes)):
        items = list(itertools.islice(value, ITEMS_CAP + 1))
        more = ", …" if len(items) > ITEMS_CAP else ""
        return "iterator of [" + ", ".join(repr(i) for i in items[:ITEMS_CAP]) + more + "]"
    return repr(value)


def _evaluate(source, namespace, limit):
    try:
        code = compile(source, "<call>", "eval")
    except SyntaxError as error:
        return {"kind": "invalid", "message": _cap("not a Python expression: %s" % error.msg, MESSAGE_CAP)}
    out = io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = out
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        value = eval(code, namespace)
        text = _describe(value)
        result = {"kind": "value", "repr": _cap(_ADDRESS.sub(" at 0x…", text), REPR_CAP)}
    except _CallTimeout:
        result = {"kind": "timeout"}
    except BaseException as error:  # noqa: BLE001 - SystemExit and the like are outputs too
        message = _ADDRESS.sub(" at 0x…", str(error))
        result = {"kind": "raised", "type": type(error).__name__, "message": _cap(message, MESSAGE_CAP)}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdout, sys.stderr = saved
    return result


def _expected(text, namespace, limit):
    if text is None:
        return None
    match = re.fullmatch(r"\s*raises\s+([A-Za-z_][\w.]*)\s*", text)
    if match:
        return {"kind": "raised", "type": match.group(1).split(".")[-1]}
    return _evaluate(text, namespace, limit)


def main():
    request_path, result_path = sys.argv[1], sys.argv[2]
    with open(request_path, encoding="utf-8") as handle:
        request = json.load(handle)
    limit = float(request.get("limit", 5))
    cwd = os.getcwd()
    for extra in (os.path.join(cwd, "src"), cwd):
        if os.path.isdir(extra) and extra not in sys.path:
            sys.path.insert(0, extra)
    signal.signal(signal.SIGALRM, _alarm)
    name = request["module"]
    result = {"module": name, "calls": []}
    try:
        signal.setitimer(signal.ITIMER_REAL, limit * 2)
        module = importlib.import_module(name)
        signal.setitimer(signal.ITIMER_REAL, 0)
    except BaseException as error:  # noqa: BLE001
        signal.setitimer(signal.ITIMER_REAL, 0)
        kind = "timed out" if isinstance(error, _CallTimeout) else "%s: %s" % (type(error).__name__, error)
        result["error"] = _cap("importing %s failed: %s" % (name, kind), MESSAGE_CAP)
    else:
        namespace = {"__builtins__": builtins}
        namespace.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
        # The module's own names win over its name: `tabulate(...)` is the function tabulate exports,
        # as `from tabulate import tabulate` has it, not the package (then "'module' object is not callable").
        namespace.setdefault(name.split(".")[-1], module)
        top = name.split(".")[0]
        namespace.setdefault(top, sys.modules.get(top, module))
        for call in request["calls"]:
            output = _evaluate(call["call"], namespace, limit)
            expected = _expected(call.get("expected"), namespace, limit)
            result["calls"].append({"output": output, "expected": expected})
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump(result, handle)


if __name__ == "__main__":
    main()
