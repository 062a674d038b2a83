-- The cause of a collector's self-watch problem (a connection cause such as `refused` or
-- `blocked`, a refused credential such as `invalid_secret`, `throttled`…): when a failing run's
-- cause differs from the stored one, the open Tenant incident's message is restated with the new
-- cause — the incident does not recover, since nothing recovered (docs/monitoring.md).
ALTER TABLE collector_schedules ADD COLUMN IF NOT EXISTS problem_cause text;
