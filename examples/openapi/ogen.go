package main

import (
	"context"
	"errors"

	"github.com/once-go/once/examples/openapi/ids"
	"github.com/once-go/once/examples/openapi/ogenapi"
)

// ogenServer implements the handler ogen generated. ogen wraps the type
// of x-ogen-type in a defined type of its own (ogenapi.UserID), converted
// to and from ids.UserID.
type ogenServer struct{ st *store }

var _ ogenapi.Handler = ogenServer{}

func (s ogenServer) CreateUser(ctx context.Context, req *ogenapi.NewUser) (ogenapi.CreateUserRes, error) {
	var invitedBy *ids.UserID
	if v, ok := req.InvitedBy.Get(); ok {
		id := ids.UserID(v)
		invitedBy = &id
	}
	u, err := s.st.create(ctx, req.Name, invitedBy)
	if errors.Is(err, errNotFound) {
		return &ogenapi.Error{Message: "invited_by: " + err.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	return ogenUser(u), nil
}

func (s ogenServer) GetUser(ctx context.Context, params ogenapi.GetUserParams) (ogenapi.GetUserRes, error) {
	id := ids.UserID(params.ID)
	u, err := s.st.get(ctx, id)
	if errors.Is(err, errNotFound) {
		return &ogenapi.Error{Message: "no user " + id.String()}, nil
	}
	if err != nil {
		return nil, err
	}
	return ogenUser(u), nil
}

func ogenUser(u user) *ogenapi.User {
	out := &ogenapi.User{ID: ogenapi.UserID(u.ID), Name: u.Name}
	if u.InvitedBy != nil {
		out.InvitedBy = ogenapi.NewOptUserID(ogenapi.UserID(*u.InvitedBy))
	}
	return out
}
