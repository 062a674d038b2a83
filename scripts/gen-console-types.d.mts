// Types of scripts/gen-console-types.mjs for the TypeScript tests that import it.
export const CONSOLE_TYPES_FILE: string;
export function renderConsoleTypes(doc: unknown): Promise<string>;
