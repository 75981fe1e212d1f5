-- SQL functions for once IDs (MySQL 8+, MariaDB 10.5+), github.com/once-go/once.
-- Installed by migrations.InstallFunctions and "once sql install" into the
-- current database; running this file again (mysql DB < mysql.sql) replaces
-- the functions with the same definitions.
--
-- MySQL has no default arguments: once_format and once_parse always take
-- the prefix, '' for none: once_format(id, ''), once_parse('zAjhfZyAAAE', '').
-- They read the stored value of an ID (the BIGINT column), never a masked
-- one: a masked ID from an API or a log needs the key ("once unmask").
-- Times are UTC DATETIME values (no time zone conversion), counted from the
-- default epoch 2025-01-01 00:00:00. All are DETERMINISTIC and NO SQL; NULL
-- in, NULL out. A BIGINT UNSIGNED column goes in as CAST(id AS SIGNED).
-- InstallFunctions leaves the functions alone when every body and COMMENT
-- already reads as here: a change to a signature alone must change a COMMENT.

DELIMITER $$

DROP FUNCTION IF EXISTS once_format$$
-- once_format(v, prefix): prefix and the url64 spelling of v (11 characters
-- of base64url), as once.Options{Prefix: prefix}.AppendText spells it
-- (0 included). The prefix must be printable ASCII without spaces, at most
-- 255 characters.
CREATE FUNCTION once_format(v BIGINT, prefix VARCHAR(256) CHARACTER SET utf8mb4)
RETURNS VARCHAR(266) CHARACTER SET ascii COLLATE ascii_bin
DETERMINISTIC NO SQL
COMMENT 'once: prefix and url64 spelling of a stored ID value'
BEGIN
    DECLARE i INT DEFAULT 1;
    DECLARE c INT;
    IF v IS NULL OR prefix IS NULL THEN
        RETURN NULL;
    END IF;
    WHILE i <= CHAR_LENGTH(prefix) DO
        SET c = ORD(SUBSTRING(prefix, i, 1));
        IF c < 33 OR c > 126 OR i > 255 THEN
            SIGNAL SQLSTATE '22023' SET MESSAGE_TEXT = 'once_format: invalid prefix: want at most 255 characters of printable ASCII without spaces';
        END IF;
        SET i = i + 1;
    END WHILE;
    RETURN CONCAT(prefix, REPLACE(REPLACE(LEFT(TO_BASE64(UNHEX(LPAD(HEX(v), 16, '0'))), 11), '+', '-'), '/', '_'));
END$$

DROP FUNCTION IF EXISTS once_parse$$
-- once_parse(s, prefix): the value that s spells, strictly as once.ParseAs
-- reads a url64 ID type with that prefix: exactly the prefix (compared byte
-- for byte, whatever the collation), then 11 characters of base64url whose
-- two spare bits are zero. Anything else, the spelling of 0 included, is an
-- error (SQLSTATE 22018).
CREATE FUNCTION once_parse(s VARCHAR(300) CHARACTER SET utf8mb4, prefix VARCHAR(256) CHARACTER SET utf8mb4)
RETURNS BIGINT
DETERMINISTIC NO SQL
COMMENT 'once: stored value of a canonical url64 spelling after exactly prefix (as once.ParseAs)'
BEGIN
    DECLARE alphabet VARBINARY(64) DEFAULT CAST('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_' AS BINARY);
    DECLARE i INT DEFAULT 1;
    DECLARE c INT;
    DECLARE body VARBINARY(1200);
    DECLARE u BIGINT UNSIGNED DEFAULT 0;
    DECLARE why VARCHAR(200);
    IF s IS NULL OR prefix IS NULL THEN
        RETURN NULL;
    END IF;
    WHILE i <= CHAR_LENGTH(prefix) DO
        SET c = ORD(SUBSTRING(prefix, i, 1));
        IF c < 33 OR c > 126 OR i > 255 THEN
            SIGNAL SQLSTATE '22023' SET MESSAGE_TEXT = 'once_parse: invalid prefix: want at most 255 characters of printable ASCII without spaces';
        END IF;
        SET i = i + 1;
    END WHILE;
    SET body = SUBSTRING(CAST(s AS BINARY), LENGTH(prefix) + 1);
    IF LEFT(CAST(s AS BINARY), LENGTH(prefix)) <> CAST(prefix AS BINARY) THEN
        SET why = CONCAT('missing prefix "', LEFT(prefix, 20), IF(CHAR_LENGTH(prefix) > 20, '..."', '"'));
    ELSEIF LENGTH(body) <> 11 THEN
        SET why = CONCAT('length ', LENGTH(body), ' after the prefix, want 11 (url64)');
    END IF;
    -- Decode byte by byte: 10 characters of 6 bits, then 4 bits and two
    -- spare zero bits.
    SET i = 1;
    WHILE why IS NULL AND i <= 11 DO
        SET c = LOCATE(SUBSTRING(body, i, 1), alphabet) - 1;
        IF c < 0 THEN
            SET why = CONCAT('byte ', i, ' after the prefix is outside base64url (A-Z a-z 0-9 - _)');
        ELSEIF i < 11 THEN
            SET u = (u << 6) | c;
        ELSEIF c & 3 <> 0 THEN
            SET why = 'non-zero spare bits in the last character (not canonical url64)';
        ELSEIF ((u << 4) | (c >> 2)) = 0 THEN
            SET why = 'spells 0, the zero ID ("no ID")';
        ELSE
            RETURN CAST((u << 4) | (c >> 2) AS SIGNED);
        END IF;
        SET i = i + 1;
    END WHILE;
    SET why = CONCAT('once_parse: invalid ID "', LEFT(s, 30), IF(CHAR_LENGTH(s) > 30, '..."', '"'), ': ', why);
    SIGNAL SQLSTATE '22018' SET MESSAGE_TEXT = why;
END$$

DROP FUNCTION IF EXISTS once_time$$
-- once_time(v): the timestamp of v, UTC with millisecond precision. For a
-- sortable ID it is when the ID was made; a counter ID's timestamp lags
-- that time (it is the high part of the counter).
CREATE FUNCTION once_time(v BIGINT)
RETURNS DATETIME(3)
DETERMINISTIC NO SQL
COMMENT 'once: timestamp of an ID (UTC, ms; default epoch 2025-01-01)'
RETURN TIMESTAMPADD(MICROSECOND, ((v >> 22) & 4398046511103) * 1000, CAST('2025-01-01 00:00:00' AS DATETIME(3)))$$

DROP FUNCTION IF EXISTS once_machine_id$$
-- once_machine_id(v): the machine ID (0..511) that made v.
CREATE FUNCTION once_machine_id(v BIGINT)
RETURNS INT
DETERMINISTIC NO SQL
COMMENT 'once: machine ID (0..511) of an ID'
RETURN (v >> 13) & 511$$

DROP FUNCTION IF EXISTS once_min_id$$
-- once_min_id(t): the lowest value whose timestamp is at or after t (a UTC
-- DATETIME; from the clock, UTC_TIMESTAMP(6), not NOW()), for range
-- queries and partition bounds: once_time(id) >= t exactly when
-- id >= once_min_id(t), while both are below 2^63 (until
-- 2094-09-07 15:47:35.552; from then on the values are negative BIGINTs).
-- An instant before the epoch, or with no millisecond of the 42-bit range
-- at or after it, is an error (SQLSTATE 22008).
CREATE FUNCTION once_min_id(t DATETIME(6))
RETURNS BIGINT
DETERMINISTIC NO SQL
COMMENT 'once: lowest ID value whose timestamp is at or after t (UTC)'
BEGIN
    DECLARE us BIGINT;
    IF t IS NULL THEN
        RETURN NULL;
    END IF;
    SET us = TIMESTAMPDIFF(MICROSECOND, CAST('2025-01-01 00:00:00' AS DATETIME(6)), t);
    IF us IS NULL OR us < 0 OR us > 4398046511103000 THEN
        SIGNAL SQLSTATE '22008' SET MESSAGE_TEXT = 'once_min_id: time is outside the range of IDs, 2025-01-01 00:00:00 to 2164-05-15 07:35:11.104';
    END IF;
    RETURN CAST(((us + 999) DIV 1000) << 22 AS SIGNED);
END$$

DELIMITER ;
