-- A collector's last failure as a code and its facts (src/monitoring/messages/errors.ts), beside
-- `last_error` (its English text, as before): the admin API renders `lastErrorText` in both
-- languages from them, so the console shows the failure in the viewer's language (issue 39).
ALTER TABLE collector_schedules ADD COLUMN IF NOT EXISTS last_error_code text;
ALTER TABLE collector_schedules ADD COLUMN IF NOT EXISTS last_error_params jsonb;
