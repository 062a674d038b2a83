/** `vigia listen` — issue 3 builds it on verifyWebhook (CONTRACT §6). */
export async function runListener(_opts: Record<string, string>): Promise<void> {
  throw new Error('vigia listen is not built yet');
}
