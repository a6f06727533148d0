package docparse

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Every failure leaves the package as an *apperr.Error with one of these codes, the file's
// name as the "name" parameter, and the cause kept for errors.Is.

func errUnsupported(name, what string) error {
	return apperr.New(apperr.DocUnsupportedType, "%s: unsupported file type (%s)", name, what).
		WithParam("name", name)
}

func errEncrypted(name string) error {
	return apperr.New(apperr.DocEncrypted, "%s: the file is encrypted or password-protected", name).
		WithParam("name", name)
}

func errTooLarge(name string, size, limit int64) error {
	return apperr.New(apperr.DocTooLarge, "%s: %d bytes is over the limit of %d", name, size, limit).
		WithParam("name", name).WithParam("size", size).WithParam("limit", limit)
}

func errTextTooLarge(limit int64) error {
	return apperr.New(apperr.DocTooLarge, "the extracted text exceeds %d bytes", limit).
		WithParam("limit", limit)
}

func errUnpacked(name, why string) error {
	return apperr.New(apperr.DocUnpackedTooLarge, "%s: archive refused: %s", name, why).
		WithParam("name", name)
}

func errCorrupt(name string, cause error) error {
	if ae := passThrough(cause); ae != nil {
		return ae
	}
	return apperr.Wrap(cause, apperr.DocCorrupt, "%s: cannot be read", name).WithParam("name", name)
}

func errNoText(name string) error {
	return apperr.New(apperr.DocNoText, "%s: no text could be extracted (a scanned or image-only file?)", name).
		WithParam("name", name)
}

func canceled(err error) error {
	return apperr.Wrap(err, apperr.Canceled, "document parsing stopped")
}

// passThrough returns cause when it already is a doc error or a cancellation, so that
// wrapping layers do not bury the first, most precise code.
func passThrough(cause error) *apperr.Error {
	var ae *apperr.Error
	if errors.As(cause, &ae) {
		return ae
	}
	if errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded) {
		return canceled(cause).(*apperr.Error)
	}
	return nil
}

func panicError(x any) error {
	if e, ok := x.(error); ok {
		return fmt.Errorf("parser panic: %w", e)
	}
	return fmt.Errorf("parser panic: %v", x)
}
