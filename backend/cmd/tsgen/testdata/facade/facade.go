// Package main is a facade for the generator's test.
package main

import (
	"context"
	"encoding/json"
	"time"
)

// App is the facade.
type App struct{ secret string }

// Kind is what a thing is.
type Kind string

// The kinds.
const (
	KindA Kind = "a"
	KindB Kind = "b"
)

// Base is embedded.
type Base struct {
	ID string `json:"id"`
}

// Thing is what Get returns.
type Thing struct {
	Base
	// Kind says what it is.
	Kind     Kind            `json:"kind"`
	Note     string          `json:"note,omitempty"`
	Parent   *Thing          `json:"parent,omitempty"`
	Next     *Thing          `json:"next"`
	Tags     []string        `json:"tags"`
	Blob     []byte          `json:"blob"`
	Meta     map[string]any  `json:"meta"`
	Raw      json.RawMessage `json:"raw"`
	At       time.Time       `json:"at"`
	Count    int64           `json:"count,string"`
	Hidden   string          `json:"-"`
	internal string
	NoTag    bool
}

// Get returns a thing.
func (a *App) Get(ctx context.Context, id string, in Kind) (Thing, error) { return Thing{}, nil }

// Drop forgets a thing.
func (a *App) Drop(id string) error { return nil }

func (a *App) unexported() {}

type wireEvents struct {
	// A thing changed.
	Changed Thing `event:"thing:changed"`
}

func main() {}
