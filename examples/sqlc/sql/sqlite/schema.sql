-- IDs are 64-bit integers that the application fills before the INSERT.
-- "integer PRIMARY KEY" makes id the rowid, for which SQLite picks a key
-- when given NULL; the application never sends one, as the zero ID has no
-- database value. sqlc.yaml maps every id and *_id column to a typed ID.
CREATE TABLE IF NOT EXISTS sqlc_users (
    id    integer PRIMARY KEY,
    email text    NOT NULL
);

CREATE TABLE IF NOT EXISTS sqlc_posts (
    id        integer PRIMARY KEY,
    author_id integer NOT NULL REFERENCES sqlc_users (id),
    editor_id integer REFERENCES sqlc_users (id), -- nullable
    title     text    NOT NULL
);
