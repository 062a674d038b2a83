/**
 * What a failed statement may tell the rest of the process, and so its logs: the statement's
 * name and PostgreSQL's error (SQLSTATE, message, the schema objects involved) — never its
 * parameters. Both drivers attach them to their errors (PGlite the whole parameter list,
 * PostgreSQL a `where`/`detail` that quotes a parameter or a row), and a parameter may be a
 * sealed credential or attacker text; an error logged as it came would write them to the log.
 */

/** A statement that failed. Its fields are safe to log; it never carries a parameter value. */
export class DatabaseStatementError extends Error {
  override readonly name = 'DatabaseStatementError';
  constructor(
    message: string,
    /** The prepared statement's name, or the statement's opening words (our SQL text, not data). */
    readonly statement: string,
    /** SQLSTATE, e.g. 23505 (unique violation), 22P05 (untranslatable character). */
    readonly code?: string,
    /** Schema objects named by the server (never values). */
    readonly table?: string,
    readonly column?: string,
    readonly constraint?: string,
  ) {
    super(message);
  }
}

const STATEMENT_WORDS = 8;

/** A short name for a statement without a prepared name: its first words (`INSERT INTO destinations …`). */
export function statementLabel(text: string, name?: string): string {
  if (name) return name;
  const words = text.trim().split(/\s+/).slice(0, STATEMENT_WORDS + 1);
  return words.length > STATEMENT_WORDS ? `${words.slice(0, STATEMENT_WORDS).join(' ')} …` : words.join(' ');
}

/**
 * PostgreSQL quotes the offending input after a colon ("invalid input syntax for type uuid:
 * "…"", "time zone displacement out of range: "…""); object names it quotes elsewhere
 * ("constraint "x"", "relation "y"") are kept.
 */
function withoutQuotedInput(message: string): string {
  return message.replace(/: "(?:[^"]|"")*"/g, ': "…"');
}

function field(err: Record<string, unknown>, key: string): string | undefined {
  const v = err[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The error to throw in place of a driver's: the statement's name, the server's code, message
 * and object names, without parameters, `detail`, `where` or the statement text.
 */
export function statementError(err: unknown, text: string, name?: string): DatabaseStatementError {
  const e = (err && typeof err === 'object' ? err : {}) as Record<string, unknown>;
  const message = withoutQuotedInput(err instanceof Error ? err.message : String(err));
  return new DatabaseStatementError(
    message,
    statementLabel(text, name),
    field(e, 'code'),
    field(e, 'table'),
    field(e, 'column'),
    field(e, 'constraint'),
  );
}

/** Runs one statement; a failure is rethrown as a DatabaseStatementError. */
export async function describingFailure<T>(text: string, name: string | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw statementError(err, text, name);
  }
}
