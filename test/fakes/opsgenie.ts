/** Opsgenie's Alert API: the alert-contract fake at its own root (`/v2/alerts`). */
import { AlertApiFake } from './alert-api.js';

export class OpsgenieFake extends AlertApiFake {
  constructor(apiKey: string) {
    super(apiKey, '');
  }
}
