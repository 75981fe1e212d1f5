-- IDs are bigints that the application fills before the INSERT (never
-- serial or identity): sqlc.yaml maps every id and *_id column to a typed ID.
CREATE TABLE IF NOT EXISTS sqlc_users (
    id    bigint PRIMARY KEY,
    email text   NOT NULL
);

CREATE TABLE IF NOT EXISTS sqlc_posts (
    id        bigint PRIMARY KEY,
    author_id bigint NOT NULL REFERENCES sqlc_users (id),
    editor_id bigint REFERENCES sqlc_users (id), -- nullable
    title     text   NOT NULL
);
