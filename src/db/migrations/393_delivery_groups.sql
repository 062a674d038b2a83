-- Grouped openings (docs/notifications.md, "No floods"): a chat destination's `alert.opened`
-- deliveries that open within its groupWaitSeconds and share a tenant (or, without one, a root
-- cause) form one group, sent as one message by its first delivery (group_id = id, the leader);
-- the others (group_id = the leader's id) are never claimed on their own while the leader is
-- pending, and end with the leader's attempt. Null for every other delivery.
ALTER TABLE deliveries ADD COLUMN group_key text;
ALTER TABLE deliveries ADD COLUMN group_id text;
-- Fan-out looks for a group still gathering at a destination; an attempt gathers its members.
CREATE INDEX deliveries_open_groups ON deliveries (destination_id, group_key, next_attempt_at) WHERE status = 'pending' AND group_id IS NOT NULL;
CREATE INDEX deliveries_group_members ON deliveries (group_id) WHERE group_id IS NOT NULL;
