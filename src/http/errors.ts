import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { DomainError, type DomainErrorKind } from '../errors.js';

/** The error envelope: { error: { code, message } }. Every failure of every API uses it. */
export interface ErrorBody {
  error: { code: string; message: string };
}

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const invalidRequest = (message: string) => new ApiError(400, 'invalid_request', message);
export const notFound = (what = 'resource') => new ApiError(404, 'not_found', `${what} not found`);
export const conflict = (message: string) => new ApiError(409, 'conflict', message);
export const forbidden = (message: string) => new ApiError(403, 'forbidden', message);

/** The one place a domain error becomes a status code and an envelope code. */
const DOMAIN_ERROR_HTTP: Record<DomainErrorKind, { status: number; code: string }> = {
  invalid: { status: 400, code: 'invalid_request' },
  not_found: { status: 404, code: 'not_found' },
  conflict: { status: 409, code: 'conflict' },
  limit: { status: 409, code: 'limit_exceeded' },
};

export function fromDomainError(err: DomainError): ApiError {
  const { status, code } = DOMAIN_ERROR_HTTP[err.kind];
  return new ApiError(status, code, err.message);
}

export function envelope(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}

export function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.statusCode).header('cache-control', 'no-store').send(envelope(err.code, err.message));
}

/** Turns a schema-validation error into a message that names the offending field. */
function validationMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return err.message;
  const where = err.validationContext ?? 'body';
  const params = first.params as Record<string, unknown>;
  const pathText = first.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : '';
  if (first.keyword === 'additionalProperties') {
    const field = [pathText, String(params.additionalProperty)].filter(Boolean).join('.');
    return `${where}: unknown field "${field}"`;
  }
  if (first.keyword === 'required') {
    const field = [pathText, String(params.missingProperty)].filter(Boolean).join('.');
    return `${where}: "${field}" is required`;
  }
  return `${where}${pathText ? ` "${pathText}"` : ''} ${first.message ?? 'is invalid'}`;
}

/**
 * Installs the error and not-found handlers so that no failure leaves the service without the
 * envelope and `Cache-Control: no-store`, and an unexpected error is a logged 500 without details.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) return sendError(reply, error);
    if (error instanceof DomainError) return sendError(reply, fromDomainError(error));
    if (error.validation) return sendError(reply, invalidRequest(validationMessage(error)));
    const status = error.statusCode ?? 500;
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, new ApiError(413, 'payload_too_large', 'request body is too large'));
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(reply, new ApiError(415, 'unsupported_media_type', 'send the body as application/json'));
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendError(reply, invalidRequest('body must not be empty'));
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendError(reply, invalidRequest('body is not valid JSON'));
    }
    if (error instanceof SyntaxError || error.code?.startsWith('FST_ERR_CTP')) {
      return sendError(reply, invalidRequest('body is not valid JSON'));
    }
    if (status >= 400 && status < 500) {
      // Framework messages may quote the request (URL, header values): answer with a fixed text.
      const text = (STATUS_CODES[status] ?? 'invalid request').toLowerCase();
      return sendError(reply, new ApiError(status, status === 404 ? 'not_found' : 'invalid_request', text));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, new ApiError(500, 'internal_error', 'internal error'));
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, new ApiError(404, 'not_found', 'no such route')));
}
