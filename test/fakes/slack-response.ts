/**
 * Slack's `response_url` as a real HTTPS server on loopback (vendor-specs chat-and-email §2.5):
 * POST JSON `{ replace_original: true, text, blocks }` to the path Slack gave in the interaction
 * payload; answers 200 `{"ok":true}`, and 404 `{"ok":false,"error":"expired_url"}` for any other
 * path. Each accepted body is kept in `replacements`; a body that is not what Slack takes is a
 * violation (the test fails on it).
 */
import { FakeVendor, contentTypeIs, type FakeReply, type RecordedRequest } from './fake-server.js';

export interface SlackReplacement {
  replace_original: boolean;
  text: string;
  blocks: Array<Record<string, unknown>>;
}

export class SlackResponseUrlFake extends FakeVendor {
  readonly replacements: SlackReplacement[] = [];
  readonly hookPath = '/actions/T0FAKE01/1234567890/respOnseUrlSecret0123';

  responseUrl(): string {
    return `${this.url}${this.hookPath}`;
  }

  protected violationReply(): FakeReply {
    return { status: 400, headers: { 'content-type': 'application/json' }, body: '{"ok":false,"error":"invalid_blocks"}' };
  }

  protected handle(r: RecordedRequest): FakeReply {
    if (r.method !== 'POST' || r.path !== this.hookPath) return { status: 404, headers: { 'content-type': 'application/json' }, body: '{"ok":false,"error":"expired_url"}' };
    const errors: string[] = [];
    const b = r.json as Partial<SlackReplacement> | undefined;
    if (!contentTypeIs(r, 'application/json') || !b || typeof b !== 'object') errors.push('not a JSON body');
    else {
      if (b.replace_original !== true) errors.push('replace_original must be true to update the clicked message');
      if (typeof b.text !== 'string' || b.text.length === 0) errors.push('text (the fallback) is required');
      if (!Array.isArray(b.blocks) || b.blocks.length > 50) errors.push('blocks must be an array of at most 50');
    }
    if (errors.length > 0) return this.violate(r, errors);
    this.replacements.push(b as SlackReplacement);
    return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
  }
}
