// Package ent is the client that ent generated from ./schema.
package ent

//go:generate go tool ent generate --feature sql/upsert ./schema
