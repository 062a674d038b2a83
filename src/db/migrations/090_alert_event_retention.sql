-- Alert events are purged once their incident is past the delivery history's retention (see
-- src/outbox/event-retention.ts). The purge asks whether any delivery still references an
-- incident's events, and deleting an event makes PostgreSQL check the deliveries.event_id foreign
-- key; without an index on the referencing column both are a scan of the whole deliveries table
-- per event.
CREATE INDEX deliveries_event ON deliveries (event_id);
