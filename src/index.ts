/** Package exports for users: the receiver kit and the public-API client. */
export {};
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookInput, type WebhookEvent } from './receiver/verify.js';
export * from './client/index.js';
