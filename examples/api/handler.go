package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"mime"
	"net/http"

	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// UserID is shown as "usr_" + 11 characters, masked; stored as a bigint.
type UserID = once.Typed[userSpec]

type userSpec struct{}

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }

// User is what the API sends and stores.
type User struct {
	ID    UserID `json:"id"`
	Email string `json:"email"`
}

// createTable creates the users table if it does not exist.
func createTable(ctx context.Context, db *sql.DB, _ migrations.Dialect, table string) error {
	_, err := db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+table+
		" (id bigint PRIMARY KEY, email varchar(320) NOT NULL)")
	return err
}

type api struct {
	db                 *sql.DB
	insert, selectByID string
}

// newHandler returns the API's routes over the users table.
func newHandler(db *sql.DB, d migrations.Dialect, table string) http.Handler {
	a := &api{db: db,
		insert:     "INSERT INTO " + table + " (id, email) VALUES (?, ?)",
		selectByID: "SELECT id, email FROM " + table + " WHERE id = ?",
	}
	if d == migrations.Postgres {
		a.insert = "INSERT INTO " + table + " (id, email) VALUES ($1, $2)"
		a.selectByID = "SELECT id, email FROM " + table + " WHERE id = $1"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", a.index)
	mux.HandleFunc("POST /users", a.createUser)
	mux.HandleFunc("GET /users/{id}", a.getUser)
	mux.HandleFunc("/users", notAllowed("POST"))
	mux.HandleFunc("/users/{id}", notAllowed("GET"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path)
	})
	return mux
}

func (a *api) index(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"service": "once example API",
		"routes":  []string{"POST /users {\"email\": ...}", "GET /users/{id}"},
	})
}

func (a *api) createUser(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeError(w, http.StatusBadRequest, "body: want Content-Type: application/json")
		return
	}
	var in struct {
		Email string `json:"email"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		writeError(w, http.StatusBadRequest, "body: want {\"email\": \"...\"}: "+err.Error())
		return
	}
	if err := checkEmail(in.Email); err != nil {
		writeError(w, http.StatusBadRequest, "email: "+err.Error())
		return
	}
	id, err := once.NewAs[UserID]()
	if err != nil {
		// No machine-ID lease right now (or none yet): try again later.
		if errors.Is(err, nonce.ErrDisabled) || errors.Is(err, once.ErrNoGenerator) {
			writeError(w, http.StatusServiceUnavailable, "cannot create IDs right now: "+err.Error())
			return
		}
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	u := User{ID: id, Email: in.Email}
	if _, err := a.db.ExecContext(r.Context(), a.insert, u.ID, u.Email); err != nil {
		writeError(w, http.StatusInternalServerError, "insert failed")
		return
	}
	w.Header().Set("Location", "/users/"+u.ID.String())
	writeJSON(w, http.StatusCreated, u)
}

func (a *api) getUser(w http.ResponseWriter, r *http.Request) {
	id, err := once.ParseAs[UserID](r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var u User
	err = a.db.QueryRowContext(r.Context(), a.selectByID, id).Scan(&u.ID, &u.Email)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		writeError(w, http.StatusNotFound, "no user "+id.String())
	case err != nil:
		writeError(w, http.StatusInternalServerError, "query failed")
	default:
		writeJSON(w, http.StatusOK, u)
	}
}

// notAllowed answers 405 with a JSON body for the other methods of a path.
func notAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, r.Method+" not allowed here; use "+allow)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
