// Package apperr is the one error type a user can see: a stable code, an i18n key with
// parameters, a technical message for the model and logs, and an optional action.
package apperr

import (
	"errors"
	"fmt"
)

// Action tells a window how the user can get out of the error (open a settings page, retry).
type Action struct {
	Kind   string `json:"kind"`             // "open-settings" | "retry"
	Target string `json:"target,omitempty"` // e.g. the settings section "providers"
}

// Error crosses every boundary between the backend and a window or the model.
type Error struct {
	Code    Code           `json:"code"`
	I18nKey string         `json:"i18nKey"`
	Params  map[string]any `json:"params,omitempty"`
	Message string         `json:"message"`
	Action  *Action        `json:"action,omitempty"`
	cause   error
}

func (e *Error) Error() string {
	if e.cause != nil && e.Message == "" {
		return e.cause.Error()
	}
	return e.Message
}

// Unwrap lets errors.Is reach the cause (context.Canceled, fs errors, …).
func (e *Error) Unwrap() error { return e.cause }

// WithParam returns a copy with one more interpolation parameter.
func (e *Error) WithParam(k string, v any) *Error {
	c := *e
	c.Params = make(map[string]any, len(e.Params)+1)
	for kk, vv := range e.Params {
		c.Params[kk] = vv
	}
	c.Params[k] = v
	return &c
}

// WithAction returns a copy pointing the user to a way out.
func (e *Error) WithAction(kind, target string) *Error {
	c := *e
	c.Action = &Action{Kind: kind, Target: target}
	return &c
}

// New builds an error of a catalogued code; the message is for the model and the logs.
func New(code Code, format string, args ...any) *Error {
	return build(code, fmt.Sprintf(format, args...), nil)
}

// Wrap keeps the cause for errors.Is while giving it a catalogued code.
func Wrap(err error, code Code, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if err != nil {
		if msg == "" {
			msg = err.Error()
		} else {
			msg = msg + ": " + err.Error()
		}
	}
	return build(code, msg, err)
}

func build(code Code, msg string, cause error) *Error {
	def, ok := catalogue[code]
	if !ok {
		def = catalogue[Unknown]
		code = Unknown
	}
	e := &Error{Code: code, I18nKey: "errors." + string(code), Message: msg, cause: cause}
	if def.action != nil {
		a := *def.action
		e.Action = &a
	}
	return e
}

// From turns any error into an *Error at the edge; unknown errors keep their raw text.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	return Wrap(err, Unknown, "")
}

// Is reports whether err carries the given code.
func Is(err error, code Code) bool {
	var ae *Error
	return errors.As(err, &ae) && ae.Code == code
}

// Codes lists every catalogued code, for the locale parity test and the frontend.
func Codes() []Code {
	out := make([]Code, 0, len(catalogue))
	for c := range catalogue {
		out = append(out, c)
	}
	return out
}
