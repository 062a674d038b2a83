/**
 * Delivery statuses. Migrations 040 and 051 (which adds skipped) hold the same list as a CHECK
 * constraint, so a bare string can never reach the table.
 *   pending   — due (or scheduled for a retry); the dispatcher claims it;
 *   waiting   — a connector delivery held behind an earlier event of the same incident;
 *   succeeded / failed / abandoned — final;
 *   skipped   — its destination was disabled when the event happened or when the delivery
 *               came due (a retry included): never sent, kept so it can be recovered (final
 *               until then).
 */
export const DELIVERY_STATUSES = ['pending', 'waiting', 'succeeded', 'failed', 'abandoned', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export type FinalStatus = Extract<DeliveryStatus, 'succeeded' | 'failed' | 'abandoned' | 'skipped'>;

/** Why held connector deliveries are abandoned when their incident's opening failed for good. */
export const OPENING_FAILED_REASON = 'abandoned: the opening delivery of this incident failed, so the target has no record to update';
/** Why a delivery was skipped. */
export const DESTINATION_DISABLED_REASON = 'skipped: the destination was disabled when the event happened';
/** Why a due delivery (a first attempt or a retry) was skipped: its destination was disabled by then. */
export const DESTINATION_DISABLED_BEFORE_SEND_REASON = 'skipped: the destination was disabled before the delivery was sent';
/** Why unsent deliveries of a deleted destination are abandoned. */
export const DESTINATION_DELETED_REASON = 'destination deleted';
