-- Who holds each lease, as "<first 16 hex digits of the token> <host>/<pid>"
-- (github.com/once-go/once/lease/sqllease writes it with every claim; the
-- token prefix tells a holder recorded with the current token from a stale
-- one). Nullable and left alone by statements that name their columns.
ALTER TABLE once_leases ADD COLUMN holder TEXT;
