/**
 * Named prepared statements on PGlite. `PGlite.query` sends every statement as the unnamed one
 * (Parse, Describe, Bind, Execute), so PostgreSQL plans it on every call; for the dispatcher's
 * claim — a dozen CTEs — planning cost as much as running it and was most of why the embedded
 * drain fell from ~1,150 to ~800 deliveries/s once the claim learned rate limits and disabled
 * destinations (bench/RESULTS.md, "Embedded engine: the drain and the claim's planning").
 *
 * Here a named statement is parsed once per database (Parse + Describe with its name: the
 * parameter types are remembered), then each call is Bind + Execute against that name, through
 * PGlite's own protocol serializer and result parser (its public `protocol` and `parse`
 * exports), so values and rows are converted exactly as `PGlite.query` converts them. PostgreSQL's
 * plan cache then decides between custom and generic plans, as it does for the pg driver's named
 * statements on the server. Only public PGlite API is used: `execProtocol` for the messages,
 * inside `runExclusive`, which PGlite documents for exactly this (protocol messages are not
 * ordered against other queries otherwise).
 *
 * A statement goes stale when a table it reads changes its columns (0A000 "cached plan must not
 * change result type") or when it no longer exists on the server (26000, e.g. after DEALLOCATE).
 * Outside a transaction it is parsed again and the call repeated. Inside one the server has
 * aborted the transaction, so nothing can be repeated there: the statement is forgotten and the
 * error goes up; the next call parses it again, and `txWithRetry` / the settings wrapper re-run
 * the whole transaction (src/db/retry.ts `isStaleStatement`).
 */
import { parse, type PGlite, protocol, type Results } from '@electric-sql/pglite';
import { isStaleStatement } from './stale-statement.js';

const { serialize } = protocol;
type BackendMessage = Awaited<ReturnType<PGlite['execProtocol']>>['messages'][number];
/** Only names we generate (`vigia_claim`, `vigia_text_3`) ever reach the protocol. */
const SAFE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export class PglitePreparedStatements {
  /** Statement name → the parameter types PostgreSQL inferred at Parse. */
  private readonly prepared = new Map<string, number[]>();

  constructor(private readonly lite: PGlite) {}

  static usable(name: string | undefined): name is string {
    return name !== undefined && SAFE_NAME.test(name);
  }

  /**
   * Runs the named statement with `params`. `inTransaction`: the caller is inside a PGlite
   * transaction (then a failure cannot be retried, and the files are synced at COMMIT).
   */
  async query<T>(name: string, text: string, params: readonly unknown[], inTransaction: boolean): Promise<Results<T>> {
    try {
      return await this.run<T>(name, text, params, inTransaction);
    } catch (err) {
      if (!isStaleStatement(err)) throw err;
      // Parsed again on the next call (parse() closes the old one first).
      this.prepared.delete(name);
      if (inTransaction) throw err;
      return this.run<T>(name, text, params, inTransaction);
    }
  }

  private async run<T>(name: string, text: string, params: readonly unknown[], inTransaction: boolean): Promise<Results<T>> {
    const lite = this.lite;
    return lite.runExclusive(async () => {
      const types = this.prepared.get(name) ?? (await this.parse(name, text));
      const values = params.map((v, i) => {
        if (v === null || v === undefined) return null;
        const serializer = lite.serializers[types[i]!];
        return serializer ? serializer(v) : String(v);
      });
      const messages = await this.exchange([serialize.bind({ statement: name, values }), serialize.describe({ type: 'P' }), serialize.execute({})]);
      if (!inTransaction) await lite.syncToFs();
      return (parse.parseResults(messages, lite.parsers) as Results<T>[])[0]!;
    });
  }

  /** Close first: a stale statement of that name may still exist (closing a missing one is no error). */
  private async parse(name: string, text: string): Promise<number[]> {
    const answers = await this.exchange([
      serialize.close({ type: 'S', name }),
      serialize.parse({ name, text }),
      serialize.describe({ type: 'S', name }),
    ]);
    const types = parse.parseDescribeStatementResults(answers);
    this.prepared.set(name, types);
    return types;
  }

  /**
   * Sends extended-protocol messages in order, then Sync — always: after an error the server
   * skips everything up to Sync. Returns the backend's answers to all of them.
   */
  private async exchange(messages: Uint8Array[]): Promise<BackendMessage[]> {
    const answers: BackendMessage[] = [];
    try {
      for (const m of messages) answers.push(...(await this.lite.execProtocol(m, { syncToFs: false })).messages);
    } finally {
      answers.push(...(await this.lite.execProtocol(serialize.sync(), { syncToFs: false })).messages);
    }
    return answers;
  }
}
