/**
 * Jira Service Management Operations integration API: the Opsgenie alert-contract fake (same
 * validation against the Opsgenie API description, same asynchronous 202 `{result, took,
 * requestId}` answers, same alias semantics) mounted at `/jsm/ops/integration`.
 */
import { AlertApiFake } from './alert-api.js';

export class JsmFake extends AlertApiFake {
  constructor(apiKey: string) {
    super(apiKey, '/jsm/ops/integration');
  }
}
