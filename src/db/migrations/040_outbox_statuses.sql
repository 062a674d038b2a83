-- Outbox (issue 9): the delivery status union and the event names as CHECK constraints, so a
-- bare string can never reach the tables; the same lists live in src/outbox/status.ts and
-- src/outbox/events.ts.
ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check
  CHECK (status IN ('pending', 'waiting', 'succeeded', 'failed', 'abandoned'));
ALTER TABLE deliveries ADD CONSTRAINT deliveries_event_check
  CHECK (event IN ('alert.opened', 'alert.acknowledged', 'alert.escalated', 'alert.recovered'));
ALTER TABLE alert_events ADD CONSTRAINT alert_events_event_check
  CHECK (event IN ('alert.opened', 'alert.acknowledged', 'alert.escalated', 'alert.recovered'));
-- A pending row always has a due time (the claim and the timer rely on it).
ALTER TABLE deliveries ADD CONSTRAINT deliveries_pending_due_check
  CHECK (status <> 'pending' OR next_attempt_at IS NOT NULL);
