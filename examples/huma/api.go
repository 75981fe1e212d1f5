package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	oncehuma "github.com/once-go/once/adapters/huma"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type userSpec struct{}

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }

// UserID is shown as "usr_" and 11 characters, masked; stored as a bigint.
type UserID = once.Typed[userSpec]

// User is what the API stores and answers.
type User struct {
	ID        UserID  `json:"id"`
	Name      string  `json:"name" minLength:"1" maxLength:"100"`
	InvitedBy *UserID `json:"invited_by,omitempty" doc:"the user who invited this one"`
}

type createUserInput struct {
	Body struct {
		Name      string  `json:"name" minLength:"1" maxLength:"100"`
		InvitedBy *UserID `json:"invited_by,omitempty" doc:"the user who invited this one"`
	}
}

type userOutput struct {
	Location string `header:"Location"`
	Body     User
}

// newAPI returns the routes: POST /users, GET /users/{id}, and huma's
// /openapi.json (and /openapi.yaml, /docs).
func newAPI(st *store) (http.Handler, error) {
	// readme:begin huma-register
	// Imports: "net/http", "github.com/danielgtaylor/huma/v2",
	// "github.com/danielgtaylor/huma/v2/adapters/humago", "github.com/once-go/once/adapters/huma".
	config := huma.DefaultConfig("once huma example", "1.0.0")
	if err := oncehuma.Register[UserID](config.Components.Schemas); err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	api := humago.New(mux, config)
	// readme:end huma-register

	huma.Register(api, huma.Operation{
		OperationID: "create-user", Method: http.MethodPost, Path: "/users",
		DefaultStatus: http.StatusCreated, Summary: "Create a user",
		Errors: []int{http.StatusUnprocessableEntity, http.StatusServiceUnavailable},
	}, func(ctx context.Context, in *createUserInput) (*userOutput, error) {
		if in.Body.InvitedBy != nil {
			if _, err := st.get(ctx, *in.Body.InvitedBy); errors.Is(err, errNotFound) {
				return nil, huma.Error422UnprocessableEntity("invited_by: no user " + in.Body.InvitedBy.String())
			} else if err != nil {
				return nil, err
			}
		}
		id, err := once.NewAs[UserID]()
		if err != nil {
			if errors.Is(err, nonce.ErrDisabled) || errors.Is(err, once.ErrNoGenerator) {
				return nil, huma.Error503ServiceUnavailable("cannot create IDs right now", err)
			}
			return nil, err
		}
		u := User{ID: id, Name: in.Body.Name, InvitedBy: in.Body.InvitedBy}
		if err := st.insert(ctx, u); err != nil {
			return nil, err
		}
		return &userOutput{Location: "/users/" + u.ID.String(), Body: u}, nil
	})

	// readme:begin huma-get
	// Imports: "context", "github.com/danielgtaylor/huma/v2".

	type getUserInput struct {
		ID UserID `path:"id"` // huma rejects a malformed ID (422) before the handler
	}
	huma.Get(api, "/users/{id}", func(ctx context.Context, in *getUserInput) (*userOutput, error) {
		u, err := st.get(ctx, in.ID)
		if err != nil {
			return nil, userError(err, in.ID)
		}
		return &userOutput{Body: u}, nil
	})
	// readme:end huma-get
	return mux, nil
}

// userError is the answer for a failed lookup of id.
func userError(err error, id UserID) error {
	if errors.Is(err, errNotFound) {
		return huma.Error404NotFound("no user " + id.String())
	}
	return err
}
