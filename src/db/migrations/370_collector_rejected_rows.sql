-- Rows a platform served that the last run skipped as unbelievable (a figure out of range, a
-- malformed event): how many, and the first reasons (src/monitoring/engine/rejected-rows.ts).
ALTER TABLE collector_schedules ADD COLUMN IF NOT EXISTS last_rejected integer;
ALTER TABLE collector_schedules ADD COLUMN IF NOT EXISTS last_rejected_note text;
