// Writes schema/autogen.schema.json and docs/configuration.md from the zod schema.
// Run after changing src/config/repo-config-schema.ts: `npm run schema`.
import { writeFile } from "node:fs/promises";
import { renderConfigDocs } from "../src/config/render-config-docs.ts";
import { repoConfigJsonSchema } from "../src/config/repo-config-json-schema.ts";

const root = new URL("../", import.meta.url);
await writeFile(new URL("schema/autogen.schema.json", root), `${JSON.stringify(repoConfigJsonSchema(), null, 2)}\n`);
await writeFile(new URL("docs/configuration.md", root), renderConfigDocs());
console.log("wrote schema/autogen.schema.json and docs/configuration.md");
