/** The notification message model shared by the chat and e-mail destination kinds. */
export * from './message.js';
export { buildNotificationMessage, updateKindOf, type MessageContext, type NotifySettings } from './build.js';
export { loadMessageContext, loadNotifySettings } from './context.js';
export { notifyTexts, formatInstant, firstSentence } from './texts.js';
export { renderTeams, TEAMS_MAX_BYTES, ADAPTIVE_CARD_CONTENT_TYPE } from './teams-card.js';
export { renderSlack, SLACK_LIMITS, slackActionsBlock, slackActionsBlockId, slackLink } from './slack-blocks.js';
export { cardText, mrkdwn, oneLine } from './escape.js';
export { loadNotificationMessage, type MessageScope } from './load.js';
