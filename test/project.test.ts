// Project-level promises: Node 24 for npm scripts, no native addons, a correct Dockerfile.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/run-cli.ts";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  type: string;
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
  bin: Record<string, string>;
};

describe("package.json", () => {
  it("is ESM, requires Node >= 22.12 and has the design's dependencies", () => {
    expect(pkg.type).toBe("module");
    expect(pkg.engines.node).toBe(">=22.12");
    for (const dep of ["probot", "openai", "execa", "@simple-git/argv-parser", "zod"])
      expect(pkg.dependencies).toHaveProperty(dep);
    // The bot runs git through execa (src/workspace/run-git.ts); simple-git builds the tests' repositories.
    expect(pkg.devDependencies).toHaveProperty("simple-git");
    expect(pkg.dependencies).not.toHaveProperty("simple-git");
    // The REST client is what the tests drive the fake GitHub with; the App gets its Octokit from Probot.
    expect(pkg.devDependencies).toHaveProperty("@octokit/rest");
    expect(pkg.dependencies.probot).toMatch(/^\^14\./);
    for (const dep of ["nock", "vitest", "typescript", "node"]) expect(pkg.devDependencies).toHaveProperty(dep);
    expect(pkg.devDependencies.node).toMatch(/^\^24\./);
    expect(pkg.bin["autogen-bot"]).toBe("bin/autogen.js");
  });

  it("ships only dependencies the product itself imports (test-only packages are devDependencies)", () => {
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(?:ts|js|mjs)$/.test(name)) sources.push(readFileSync(path, "utf8"));
      }
    };
    for (const dir of ["src", "bin"]) walk(join(ROOT, dir));
    const text = sources.join("\n");
    const unused = Object.keys(pkg.dependencies).filter(
      (dep) =>
        !new RegExp(`from "${dep}(?:/[^"]*)?"|import\\("${dep}(?:/[^"]*)?"\\)|require\\.resolve\\("${dep}`).test(text),
    );
    expect(unused).toEqual([]);
  });

  it("the test command runs lint, typecheck and tests", () => {
    expect(pkg.scripts.test).toBe("npm run lint && npm run typecheck && npm run test:unit");
  });

  it("npm scripts run on the Node 24 the project brings", async () => {
    const { stdout } = await promisify(execFile)("npm", ["run", "-s", "node-version"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    expect(stdout.trim()).toMatch(/^v24\.\d+\.\d+$/);
  });

  it("has no native addon anywhere in the installed tree", () => {
    const offenders: string[] = [];
    const walk = (dir: string, depth: number) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        const stat = statSync(path, { throwIfNoEntry: false });
        if (!stat) continue;
        if (stat.isDirectory()) {
          if (depth < 12) walk(path, depth + 1);
        } else if (name.endsWith(".node") || name === "binding.gyp") {
          offenders.push(path.slice(ROOT.length));
        }
      }
    };
    walk(join(ROOT, "node_modules"), 0);
    expect(offenders).toEqual([]);
  });
});

describe("Dockerfile", () => {
  const text = readFileSync(join(ROOT, "Dockerfile"), "utf8");
  const stages = text.split(/^FROM /m).slice(1);

  it("is multi-stage on node:24-slim", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage).toMatch(/^node:24-slim\b/);
  });

  it("final image: git installed, non-root user, HOST=0.0.0.0, production deps only, prompts, resources and app.yml copied", () => {
    const final = stages.at(-1) ?? "";
    expect(final).toMatch(/apt-get install[^\n]*\bgit\b/);
    expect(final).toMatch(/^USER (?!root)\w+/m);
    expect(final).toMatch(/HOST=0\.0\.0\.0/);
    expect(final).toMatch(/COPY --from=deps \/app\/node_modules/);
    expect(text).toMatch(/npm ci --omit=dev/);
    expect(final).toMatch(/^COPY prompts /m);
    expect(final).toMatch(/^COPY resources /m);
    expect(final).toMatch(/^COPY templates /m);
    expect(final).toMatch(/^COPY [^\n]*app\.yml/m);
  });

  it(".dockerignore keeps keys and .env out", () => {
    const ignore = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n");
    expect(ignore).toContain(".env");
    expect(ignore).toContain("*.pem");
    expect(existsSync(join(ROOT, "prompts"))).toBe(true);
  });
});

describe("webhook entry points", () => {
  // `autogen serve` (src/server/start-server.ts) is the only way to run the App: its ingress
  // reads bodies under a size limit. Probot's own servers and middleware buffer any body.
  const unbounded =
    /\b(createNodeMiddleware|createProbot|createWebhookProxy|webhooks\.middleware)\b|\bnew Server\(|import\s*\{[^}]*\b(run|Server)\b[^}]*\}\s*from\s*"probot"/;
  const sources = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
      .filter((name) => /\.(ts|js)$/.test(name))
      .map((name) => join(dir, name));

  it("no shipped code or script serves webhooks through an unbounded reader", () => {
    const offenders = [...sources("src"), ...sources("scripts"), ...sources("bin")].filter((file) =>
      unbounded.test(readFileSync(join(ROOT, file), "utf8")),
    );
    expect(offenders).toEqual([]);
    expect(existsSync(join(ROOT, "src/index.ts"))).toBe(false);
  });
});
