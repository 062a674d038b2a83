/**
 * The live demo's Teams-shaped receiver (docs/notifications.md, "Microsoft Teams"): an HTTPS
 * server on loopback, with the demo certificate, that takes what a Teams Workflows webhook takes —
 * a POST of the message envelope with one Adaptive Card, on the workflow's invoke path — answers
 * 202 Accepted as the workflow does, and saves each card as a `.json` file, so the demo's `teams`
 * destination can be seen (paste a file into the Adaptive Cards Designer to see it as Teams would).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import path from 'node:path';

export interface TeamsSink {
  /** The webhook URL to give a `teams` destination (its `sig` authorizes nothing here). */
  webhookUrl: string;
  /** Where the card files are written. */
  dir: string;
  /** Files written so far, in order. */
  files: string[];
  close(): Promise<void>;
}

const INVOKE_PATH = '/powerautomate/automations/direct/workflows/0d3e0c0a5b7f4e2c9a1b8c7d6e5f4a3b/triggers/manual/paths/invoke';
const MAX_BODY = 28 * 1024;

/** The card of a Teams message envelope, or null when the body is not one. */
function cardOf(body: string): unknown {
  try {
    const m = JSON.parse(body) as { type?: unknown; attachments?: { contentType?: unknown; content?: unknown }[] };
    const a = m.type === 'message' && Array.isArray(m.attachments) ? m.attachments[0] : undefined;
    return a?.contentType === 'application/vnd.microsoft.card.adaptive' ? a.content : null;
  } catch {
    return null;
  }
}

export async function startTeamsSink(dir: string, tls: { cert: Buffer | string; key: Buffer | string }): Promise<TeamsSink> {
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const save = (card: unknown) => {
    const file = path.join(dir, `${stamp}-${String(files.length + 1).padStart(3, '0')}.json`);
    writeFileSync(file, `${JSON.stringify(card, null, 2)}\n`);
    files.push(file);
  };
  const server = createServer({ cert: tls.cert, key: tls.key }, async (req, res) => {
    let body = '';
    req.setEncoding('utf8'); // chunks decoded as text, a character never split between two
    for await (const chunk of req) if (body.length <= MAX_BODY) body += chunk as string;
    const url = new URL(req.url ?? '/', 'https://localhost');
    const card = req.method === 'POST' && url.pathname === INVOKE_PATH && body.length <= MAX_BODY ? cardOf(body) : null;
    if (!card) {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"code":"InvalidRequestContent","message":"not a Teams message with an Adaptive Card"}}');
      return;
    }
    save(card);
    res.writeHead(202).end();
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    webhookUrl: `https://localhost:${port}${INVOKE_PATH}?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=demo-signature-0123456789`,
    dir,
    files,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
