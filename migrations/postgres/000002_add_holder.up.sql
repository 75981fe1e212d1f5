-- Who holds each lease, as "<first 16 hex digits of the token> <host>/<pid>"
-- (github.com/once-go/once/lease/sqllease writes it with every claim; the
-- token prefix tells a holder recorded with the current token from a stale
-- one). Nullable and unknown to the Elixir NoNoncense library, whose
-- statements name their columns and leave it alone.
ALTER TABLE once_leases ADD COLUMN IF NOT EXISTS holder VARCHAR(255);
