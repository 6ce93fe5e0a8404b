// Prompts are data: one YAML file per stage under prompts/ with the system and user
// templates and the temperature. `{{name}}` inserts our own text; `{{untrusted:name}}`
// inserts outside text, cleaned, inside an <untrusted> block. A section that may have
// nothing to say marks its variable optional (`{{name?}}`): when the value is empty or only
// says so ("(none)", "(not requested)"), the whole paragraph holding it is left out.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { z } from "zod";
import { untrustedBlock } from "./sanitize-untrusted.ts";

import { STAGES, type Stage } from "../config/llm-stages.ts";

export { STAGES, type Stage };

const promptSchema = z.strictObject({
  stage: z.enum(STAGES),
  temperature: z.number().min(0).max(2),
  system: z.string().min(1),
  user: z.string().min(1),
});
export type PromptTemplate = z.infer<typeof promptSchema>;

const PROMPTS_DIR = fileURLToPath(new URL("../../prompts/", import.meta.url));
const cache = new Map<Stage, PromptTemplate>();

export function loadPrompt(stage: Stage, dir = PROMPTS_DIR): PromptTemplate {
  const cached = dir === PROMPTS_DIR ? cache.get(stage) : undefined;
  if (cached) return cached;
  const parsed = promptSchema.safeParse(parse(readFileSync(`${dir}${stage}.yml`, "utf8")));
  if (!parsed.success)
    throw new Error(
      `prompts/${stage}.yml is invalid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  if (parsed.data.stage !== stage) throw new Error(`prompts/${stage}.yml declares stage "${parsed.data.stage}"`);
  if (dir === PROMPTS_DIR) cache.set(stage, parsed.data);
  return parsed.data;
}

export type PromptVars = { trusted?: Record<string, string>; untrusted?: Record<string, string> };

const TEMPLATE_VARIABLE = /\{\{\s*(untrusted:)?([a-zA-Z][\w-]*)(\?)?\s*\}\}/g;
/** What a caller passes for a section with nothing in it. */
const NOTHING = /^\s*(\((none|not |no )[^()\n]{0,60}\))?\s*$/i;

/** A paragraph whose optional variable has nothing to say goes, with its heading. */
function withoutEmptySections(template: string, vars: PromptVars): string {
  return template
    .split("\n\n")
    .filter((paragraph) =>
      [...paragraph.matchAll(TEMPLATE_VARIABLE)].every(([, untrusted, name, optional]) => {
        if (!optional || !name) return true;
        const value = untrusted ? vars.untrusted?.[name] : vars.trusted?.[name];
        return value === undefined || !NOTHING.test(value);
      }),
    )
    .join("\n\n");
}

export function renderTemplate(template: string, vars: PromptVars): string {
  return withoutEmptySections(template, vars).replace(
    TEMPLATE_VARIABLE,
    (_, untrusted: string | undefined, name: string) => {
      if (untrusted) {
        const value = vars.untrusted?.[name];
        if (value === undefined) throw new Error(`prompt variable untrusted:${name} was not given`);
        return untrustedBlock(name, value);
      }
      const value = vars.trusted?.[name];
      if (value === undefined) throw new Error(`prompt variable ${name} was not given`);
      return value;
    },
  );
}

export function renderPrompt(stage: Stage, vars: PromptVars): { system: string; user: string; temperature: number } {
  const prompt = loadPrompt(stage);
  return {
    system: renderTemplate(prompt.system, vars),
    user: renderTemplate(prompt.user, vars),
    temperature: prompt.temperature,
  };
}
