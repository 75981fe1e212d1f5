DROP TABLE IF EXISTS once_leases;
