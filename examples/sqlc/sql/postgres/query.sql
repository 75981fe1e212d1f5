-- name: InsertUser :one
INSERT INTO sqlc_users (id, email) VALUES ($1, $2)
RETURNING *;

-- name: GetUser :one
SELECT * FROM sqlc_users WHERE id = $1;

-- name: InsertPost :one
INSERT INTO sqlc_posts (id, author_id, editor_id, title) VALUES ($1, $2, $3, $4)
RETURNING *;

-- name: GetPost :one
SELECT * FROM sqlc_posts WHERE id = $1;

-- name: ListPostsByAuthor :many
SELECT * FROM sqlc_posts WHERE author_id = $1 ORDER BY id;

-- name: SetEditor :exec
UPDATE sqlc_posts SET editor_id = $2 WHERE id = $1;

-- name: ListPostsWithEditor :many
-- Each post with its editor's email, if any. It selects p.editor_id, not
-- e.id: sqlc types e.id with the override of sqlc_users.id, a UserID that
-- cannot hold the NULL of a post without an editor.
SELECT p.id, p.title, p.editor_id, e.email AS editor_email
FROM sqlc_posts p LEFT JOIN sqlc_users e ON e.id = p.editor_id
ORDER BY p.id;

