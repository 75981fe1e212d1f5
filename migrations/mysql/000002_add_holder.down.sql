ALTER TABLE once_leases DROP COLUMN holder;
