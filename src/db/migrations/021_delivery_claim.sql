-- Delivery engine (issue 3): the claim runs as one statement; the budget row reports how many
-- deliveries the last charge granted (RETURNING sees only new values on PostgreSQL 15).
ALTER TABLE delivery_org_budget ADD COLUMN granted integer NOT NULL DEFAULT 0;
