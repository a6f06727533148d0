package redact

import (
	"context"
	"fmt"
	"log/slog"
)

// Handler wraps h so that every record's message and attributes are redacted before h
// sees them.
func (s *Set) Handler(h slog.Handler) slog.Handler {
	if s == nil {
		return h
	}
	return &handler{inner: h, set: s}
}

type handler struct {
	inner slog.Handler
	set   *Set
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	ns := h.set.snapshot()
	if len(ns) == 0 {
		return h.inner.Handle(ctx, r)
	}
	out := slog.NewRecord(r.Time, r.Level, redactWith(ns, r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(ns, a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	ns := h.set.snapshot()
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = redactAttr(ns, a)
	}
	return &handler{inner: h.inner.WithAttrs(red), set: h.set}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{inner: h.inner.WithGroup(name), set: h.set}
}

// redactAttr redacts strings, errors, Stringers and any other value by the text a
// handler would print for it.
func redactAttr(ns []string, a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, redactWith(ns, v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]slog.Attr, len(g))
		for i, ga := range g {
			red[i] = redactAttr(ns, ga)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(red...)}
	case slog.KindAny:
		var text string
		switch x := v.Any().(type) {
		case error:
			text = x.Error()
		case fmt.Stringer:
			text = x.String()
		case []byte:
			text = string(x)
		default:
			text = fmt.Sprintf("%+v", x)
		}
		if r := redactWith(ns, text); r != text {
			return slog.String(a.Key, r)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
