// Which Node runs autogen-bot, checked before any TypeScript is loaded, in plain JavaScript
// old Nodes can parse: the sources need type stripping (Node 22.18+, 23.6+), the build 22.12+.

/** @param {string} version e.g. "20.20.2" @param {boolean} fromSources @returns {string | undefined} */
export function nodeProblem(version, fromSources) {
  const [major = 0, minor = 0] = version.split(".").map((part) => Number.parseInt(part, 10));
  const least = fromSources ? (major === 23 ? [23, 6] : [22, 18]) : [22, 12];
  if (major > least[0] || (major === least[0] && minor >= least[1])) return undefined;
  return [
    `autogen-bot needs Node.js ${least.join(".")} or later (Node 24 LTS recommended); this is Node ${version}.`,
    "From a checkout, `npm run autogen -- <command>` runs it on the Node 24 that `npm install` brought",
    "(the `node` devDependency); otherwise install Node 24 LTS (https://nodejs.org/en/download).",
  ].join("\n");
}
