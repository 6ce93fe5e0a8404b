/** What is wrong with this Node for autogen-bot, as sentences to print, or undefined when it will do. */
export function nodeProblem(version: string, fromSources: boolean): string | undefined;
