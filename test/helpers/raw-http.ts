import net from 'node:net';

/** What came back on a raw connection: a parsed HTTP answer, or none before the peer closed. */
export interface RawAnswer {
  /** Every byte received until the server closed the connection (or the read limit). */
  raw: Buffer;
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** True when the server closed the connection (FIN or reset) after / instead of answering. */
  closed: boolean;
}

/**
 * Writes hand-made request bytes to host:port and reads until the server closes the connection
 * or one complete answer has arrived (`stopAfterAnswer`). `keepWriting` streams extra bytes after
 * the request (a body the server should not wait for) without ending the socket.
 */
export function rawRequest(
  port: number,
  bytes: string | Buffer,
  opts: { stopAfterAnswer?: boolean; endAfterWrite?: boolean; timeoutMs?: number } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    let closed = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(chunks), closed));
    };
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      socket.destroy();
      reject(new Error(`no close within ${opts.timeoutMs ?? 10_000} ms; got ${Buffer.concat(chunks).toString('latin1').slice(0, 200)}`));
    }, opts.timeoutMs ?? 10_000);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (opts.stopAfterAnswer && isComplete(Buffer.concat(chunks))) finish();
    });
    socket.on('error', () => {
      closed = true;
      finish();
    });
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.write(bytes, () => {
      if (opts.endAfterWrite) socket.end();
    });
  });
}

function isComplete(buf: Buffer): boolean {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const m = /\r\ncontent-length:\s*(\d+)/i.exec(buf.subarray(0, end).toString('latin1'));
  return m ? buf.length >= end + 4 + Number(m[1]) : false;
}

/** The first answer in `raw`; its body ends at Content-Length (a pipelined answer may follow). */
export function parseAnswer(raw: Buffer, closed: boolean): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, end < 0 ? raw.length : end).toString('latin1');
  const m = /^HTTP\/1\.1 (\d{3}) [^\r\n]*/.exec(head);
  if (!m || end < 0) return { raw, status: null, headers: {}, body: '', closed };
  const headers: Record<string, string> = {};
  for (const line of head.slice(m[0].length).split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  const body = raw.subarray(end + 4, length === undefined ? undefined : end + 4 + length).toString('utf8');
  return { raw, status: Number(m[1]), headers, body, closed };
}
