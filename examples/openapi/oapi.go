package main

import (
	"context"
	"errors"

	"github.com/once-go/once/examples/openapi/oapi"
)

// oapiServer implements the server oapi-codegen generated (strict mode:
// it gets the decoded request, returns the response object).
type oapiServer struct{ st *store }

var _ oapi.StrictServerInterface = oapiServer{}

func (s oapiServer) CreateUser(ctx context.Context, req oapi.CreateUserRequestObject) (oapi.CreateUserResponseObject, error) {
	u, err := s.st.create(ctx, req.Body.Name, req.Body.InvitedBy)
	if errors.Is(err, errNotFound) {
		return oapi.CreateUser422JSONResponse{Message: "invited_by: " + err.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	return oapi.CreateUser201JSONResponse{Id: u.ID, Name: u.Name, InvitedBy: u.InvitedBy}, nil
}

func (s oapiServer) GetUser(ctx context.Context, req oapi.GetUserRequestObject) (oapi.GetUserResponseObject, error) {
	u, err := s.st.get(ctx, req.Id) // req.Id is an ids.UserID: the generated code parsed it
	if errors.Is(err, errNotFound) {
		return oapi.GetUser404JSONResponse{Message: "no user " + req.Id.String()}, nil
	}
	if err != nil {
		return nil, err
	}
	return oapi.GetUser200JSONResponse{Id: u.ID, Name: u.Name, InvitedBy: u.InvitedBy}, nil
}
