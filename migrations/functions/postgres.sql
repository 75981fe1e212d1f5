-- SQL functions for once IDs (PostgreSQL 12+), github.com/once-go/once.
-- Installed by migrations.InstallFunctions and "once sql install"; running
-- this file again replaces the functions with the same definitions.
--
-- They read the stored value of an ID (the bigint column), never a masked
-- one: a masked ID from an API or a log needs the key ("once unmask").
-- Timestamps are UTC (timestamp without time zone, milliseconds) counted
-- from the default epoch 2025-01-01T00:00:00Z. All are IMMUTABLE, STRICT
-- (NULL in, NULL out) and PARALLEL SAFE, so the planner folds calls with
-- constant arguments and partition pruning sees constants.

-- once_format(v, prefix): prefix and the url64 spelling of v (11 characters
-- of base64url), as once.Options{Prefix: prefix}.AppendText spells it
-- (0 included). The prefix must be printable ASCII without spaces.
CREATE OR REPLACE FUNCTION once_format(v bigint, prefix text DEFAULT '')
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
BEGIN
    IF prefix COLLATE "C" !~ '^[!-~]*$' THEN
        RAISE EXCEPTION 'once_format: invalid prefix "%": want printable ASCII without spaces',
            regexp_replace(left(prefix, 40) COLLATE "C", '[^ -~]', '?', 'g')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN prefix || translate(rtrim(encode(int8send(v), 'base64'), '='), '+/', '-_');
END
$$;

-- once_parse(s, prefix): the value that s spells, strictly as once.ParseAs
-- reads a url64 ID type with that prefix: exactly the prefix, then 11
-- characters of base64url whose two spare bits are zero. Anything else, the
-- spelling of 0 included, raises invalid_text_representation (22P02).
CREATE OR REPLACE FUNCTION once_parse(s text, prefix text DEFAULT '')
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    body text;
    v bigint;
    why text;
BEGIN
    IF prefix COLLATE "C" !~ '^[!-~]*$' THEN
        RAISE EXCEPTION 'once_parse: invalid prefix "%": want printable ASCII without spaces',
            regexp_replace(left(prefix, 40) COLLATE "C", '[^ -~]', '?', 'g')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    body := substr(s, length(prefix) + 1);
    IF left(s, length(prefix)) COLLATE "C" <> prefix COLLATE "C" THEN
        why := 'missing prefix "' || prefix || '"';
    ELSIF length(body) <> 11 THEN
        why := 'length ' || length(body) || ' after the prefix, want 11 (url64)';
    ELSIF body COLLATE "C" !~ '^[A-Za-z0-9_-]{11}$' THEN
        why := 'a character outside base64url (A-Z a-z 0-9 - _)';
    ELSIF body COLLATE "C" !~ '[AEIMQUYcgkosw048]$' THEN
        why := 'non-zero spare bits in the last character (not the canonical url64 spelling)';
    ELSE
        v := ('x' || encode(decode(translate(body, '-_', '+/') || '=', 'base64'), 'hex'))::bit(64)::bigint;
        IF v = 0 THEN
            why := 'spells 0, the zero ID ("no ID")';
        ELSE
            RETURN v;
        END IF;
    END IF;
    RAISE EXCEPTION 'once_parse: invalid ID "%": %',
        regexp_replace(left(s, 40) COLLATE "C", '[^ -~]', '?', 'g') || CASE WHEN length(s) > 40 THEN '...' ELSE '' END, why
        USING ERRCODE = 'invalid_text_representation';
END
$$;

-- once_time(v): the timestamp of v, UTC with millisecond precision. For a
-- sortable ID it is when the ID was made; a counter ID's timestamp lags
-- that time (it is the high part of the counter).
CREATE OR REPLACE FUNCTION once_time(v bigint)
RETURNS timestamp
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT TIMESTAMP '2025-01-01 00:00:00' + ((v >> 22) & 4398046511103) * INTERVAL '1 millisecond'
$$;

-- once_machine_id(v): the machine ID (0..511) that made v.
CREATE OR REPLACE FUNCTION once_machine_id(v bigint)
RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT ((v >> 13) & 511)::integer
$$;

-- once_min_id(t): the lowest value whose timestamp is at or after t (UTC),
-- for range queries and partition bounds: once_time(id) >= t exactly when
-- id >= once_min_id(t), while both are below 2^63 (until
-- 2094-09-07 15:47:35.552; from then on the values are negative bigints).
-- An instant before the epoch, or with no millisecond of the 42-bit range
-- at or after it, raises datetime_field_overflow (22008).
CREATE OR REPLACE FUNCTION once_min_id(t timestamp)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    us bigint;
    ms bigint;
BEGIN
    IF isfinite(t) THEN
        -- Days and microseconds of the day, exactly (no floating point).
        us := (t::date - DATE '2025-01-01')::bigint * 86400000000
            + round(extract(epoch FROM t::time) * 1000000)::bigint;
        ms := (us + 999) / 1000;
    END IF;
    IF us IS NULL OR us < 0 OR ms > 4398046511103 THEN
        RAISE EXCEPTION 'once_min_id: time % is outside the range of IDs, 2025-01-01 00:00:00 to 2164-05-15 07:35:11.104', t
            USING ERRCODE = 'datetime_field_overflow';
    END IF;
    RETURN ms << 22;
END
$$;

COMMENT ON FUNCTION once_format(bigint, text) IS 'once: prefix and url64 spelling of a stored ID value';
COMMENT ON FUNCTION once_parse(text, text) IS 'once: stored value of a canonical url64 spelling after exactly prefix (as once.ParseAs)';
COMMENT ON FUNCTION once_time(bigint) IS 'once: timestamp of an ID (UTC, ms; default epoch 2025-01-01)';
COMMENT ON FUNCTION once_machine_id(bigint) IS 'once: machine ID (0..511) of an ID';
COMMENT ON FUNCTION once_min_id(timestamp) IS 'once: lowest ID value whose timestamp is at or after t (UTC)';
