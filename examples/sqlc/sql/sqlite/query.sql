-- name: InsertUser :one
INSERT INTO sqlc_users (id, email) VALUES (?, ?)
RETURNING *;

-- name: GetUser :one
SELECT * FROM sqlc_users WHERE id = ?;

-- name: InsertPost :one
INSERT INTO sqlc_posts (id, author_id, editor_id, title) VALUES (?, ?, ?, ?)
RETURNING *;

-- name: GetPost :one
SELECT * FROM sqlc_posts WHERE id = ?;

-- name: ListPostsByAuthor :many
SELECT * FROM sqlc_posts WHERE author_id = ? ORDER BY id;

-- name: SetEditor :exec
UPDATE sqlc_posts SET editor_id = ? WHERE id = ?;

-- name: ListPostsWithEditor :many
-- Each post with its editor's email, if any. It selects p.editor_id, not
-- e.id: sqlc types e.id with the override of sqlc_users.id, a UserID that
-- cannot hold the NULL of a post without an editor.
SELECT p.id, p.title, p.editor_id, e.email AS editor_email
FROM sqlc_posts p LEFT JOIN sqlc_users e ON e.id = p.editor_id
ORDER BY p.id;

-- name: ListUsersByIDs :many
SELECT * FROM sqlc_users WHERE id IN (sqlc.slice('ids')) ORDER BY id;
