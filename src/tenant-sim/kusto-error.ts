/** Kusto's error answer (OneApiErrors shape), shared by the simulated query and management endpoints. */
import { randomUUID } from 'node:crypto';
import type { Reply } from './reply.js';

export function kustoError(status: number, code: string, message: string, permanent = true, inner?: string): Reply {
  const activityId = randomUUID();
  return {
    status,
    headers: { 'x-ms-activity-id': activityId, 'x-ms-client-request-id': randomUUID() },
    body: {
      error: {
        code,
        message,
        '@type': 'Kusto.Data.Exceptions.KustoBadRequestException',
        '@message': message,
        '@context': { timestamp: new Date().toISOString(), activityId },
        '@permanent': permanent,
        ...(inner ? { innererror: { code: inner, message } } : {}),
      },
    },
  };
}
