-- Findings at connection (docs/monitoring.md): the first pass of each collector of a newly
-- connected tenant opens what it finds silenced ("found at connection") instead of paging, and
-- the tenant announces once how many problems were found.
-- Collectors that already ran before this migration have done their first pass; rows created
-- from now on (a new tenant) have not.
ALTER TABLE collector_schedules ADD COLUMN first_pass_done boolean NOT NULL DEFAULT true;
ALTER TABLE collector_schedules ALTER COLUMN first_pass_done SET DEFAULT false;
-- Page the first passes' findings like any other failure instead (per tenant, default off).
ALTER TABLE tenants ADD COLUMN page_findings_at_connection boolean NOT NULL DEFAULT false;
-- How many incidents the first passes opened, and when the tenant announced it (TenantConnected, once).
ALTER TABLE tenants ADD COLUMN connection_findings integer NOT NULL DEFAULT 0;
ALTER TABLE tenants ADD COLUMN connection_announced_at timestamptz;
-- Why an incident was silenced without a silence rule. Such an incident is never released: it
-- stays quiet until it resolves (a later failure of the same key opens a new, normal incident).
ALTER TABLE alerts ADD COLUMN silence_reason text;
