package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxBody bounds a request body.
const maxBody = 1 << 16

// decodeJSON reads r's body as exactly one JSON value into v: Content-Type
// application/json, valid UTF-8, no fields v does not have, nothing after
// the value but white space.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return errors.New("want Content-Type: application/json")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return err
	}
	// encoding/json replaces invalid UTF-8 with U+FFFD instead of failing.
	if !utf8.Valid(body) {
		return errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// checkEmail accepts local@domain: exactly one @, both parts non-empty, at
// most 254 bytes, no control characters and no U+FFFD (what a lone UTF-16
// surrogate escape decodes to).
func checkEmail(s string) error {
	local, domain, ok := strings.Cut(s, "@")
	switch {
	case len(s) > 254:
		return errors.New("longer than 254 bytes")
	case !ok || local == "" || domain == "" || strings.Contains(domain, "@"):
		return errors.New("want one @ between a local part and a domain, such as ada@example.com")
	case strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }):
		return errors.New("control or invalid characters")
	}
	return nil
}
