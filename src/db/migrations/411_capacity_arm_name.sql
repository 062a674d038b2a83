-- A capacity's Azure resource name (issue 39, item 5): Cost Management groups costs by resource,
-- and a capacity's display name may differ from its resource name ("Capacity 001" and
-- `fabriccap001`). The inventory collector stores the ARM name it joined to the capacity, the
-- costs collector files cost rows under the capacity's display name through it, and the console
-- shows it beside the display name. Null where no ARM resource is known (P SKUs, no cost scope,
-- a list written through the admin API).
ALTER TABLE capacities ADD COLUMN arm_name text;
