import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, envelope, sendError } from './errors.js';
import { DATA_SECURITY_HEADERS } from './security-headers.js';

/**
 * Answers for requests that never reach a route: Node's HTTP parser refusing the bytes
 * (`clientError`) and Fastify's router refusing the URL (`frameworkErrors`). Both answer in the
 * error envelope with `Cache-Control: no-store` and a fixed message — never the request's own
 * text, which is attacker-controlled and could land in a log viewer or a browser.
 */

interface ParserFailure {
  status: number;
  code: string;
  message: string;
}

/** Node's llhttp / http-server error codes → what the client is told. */
export function describeParserError(code: string | undefined): ParserFailure {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'headers_too_large', message: 'request headers are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: 'the request was not received in time' };
    case 'HPE_INVALID_METHOD':
      return { status: 400, code: 'invalid_request', message: 'unknown or malformed request method' };
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return { status: 400, code: 'invalid_request', message: 'conflicting or invalid body framing headers' };
    default:
      return { status: 400, code: 'invalid_request', message: 'malformed HTTP request' };
  }
}

/** A complete HTTP/1.1 answer with the envelope; the connection is closed after it. */
export function rawErrorResponse(f: ParserFailure): string {
  const body = JSON.stringify(envelope(f.code, f.message));
  return (
    `HTTP/1.1 ${f.status} ${STATUS_CODES[f.status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    'Cache-Control: no-store\r\n' +
    Object.entries(DATA_SECURITY_HEADERS)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    'Connection: close\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/**
 * Fastify `clientErrorHandler` (Node's `clientError` event). Where Node can no longer answer —
 * the peer reset the connection, the socket is gone, or an answer to an earlier pipelined
 * request has already started on it — the socket is closed without an answer; otherwise the
 * envelope is written and the socket closed.
 */
export function handleClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.end(rawErrorResponse(describeParserError(err.code)));
    // end() flushes then closes; destroy is the fallback should the peer never read.
    socket.setTimeout(5_000, () => socket.destroy());
    return;
  }
  socket.destroy();
}

/** Fastify `frameworkErrors`: bad percent-encoding in the path, over-long path parameters. */
export function handleFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendError(reply, new ApiError(414, 'uri_too_long', 'a path segment is too long'));
    return;
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    sendError(reply, new ApiError(400, 'invalid_request', 'the URL is not valid percent-encoding'));
    return;
  }
  sendError(reply, new ApiError(400, 'invalid_request', 'the request could not be routed'));
}

/**
 * HTTP/1.1 requires a Host header. Node's own check answers a bare `400` outside the envelope,
 * so the server turns it off (`requireHostHeader: false`) and this root onRequest hook answers instead.
 */
export async function requireHostHeader(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  if (request.raw.httpVersion !== '1.1' || request.headers.host !== undefined) return undefined;
  reply.header('connection', 'close');
  return sendError(reply, new ApiError(400, 'invalid_request', 'the Host header is required'));
}
