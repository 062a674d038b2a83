/** What a simulated endpoint answers, and each vendor's error body. */
import { randomUUID } from 'node:crypto';
import type { ScannerBook, SimState } from './types.js';

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** JSON value (serialized by the server); undefined = no body. */
  body?: unknown;
}

export interface RequestContext {
  state: SimState;
  origin: string;
  method: string;
  path: string;
  query: URLSearchParams;
  json: unknown;
  pathParams: Record<string, string>;
  now: number;
  /** Page size of the Fabric list being answered (admin lists page larger). */
  fabricPageSize: number;
  costPageRows: number;
  /** Fabric long-running operations of this simulator: id → result and how often it was polled. */
  operations: Map<string, LongRunningOperation>;
  /** Power BI scanner (metadata scanning) scans and what the service leaves out of them. */
  scanner: ScannerBook;
  /** Strict mode: a request outside what the vendor documents is recorded as a violation. */
  strict?: boolean;
  violate?: (message: string) => void;
}

export interface LongRunningOperation {
  result: unknown;
  polls: number;
  createdAt: string;
  /** The operation ends `Failed` with this error instead of `Succeeded`. */
  failure?: { errorCode: string; message: string };
}

export type Handler = (ctx: RequestContext) => Reply;

export function fabricError(status: number, errorCode: string, message: string, isRetriable = false): Reply {
  return { status, headers: { 'x-ms-public-api-error-code': errorCode, requestId: randomUUID() }, body: { requestId: randomUUID(), errorCode, message, isRetriable } };
}

export function powerBiError(status: number, code: string, message: string): Reply {
  return { status, headers: { RequestId: randomUUID() }, body: { error: { code, message } } };
}

export function armError(status: number, code: string, message: string): Reply {
  return { status, headers: { 'x-ms-request-id': randomUUID(), 'x-ms-correlation-request-id': randomUUID() }, body: { error: { code, message } } };
}

export function ok(body: unknown, headers?: Record<string, string>): Reply {
  return { status: 200, body, headers };
}
