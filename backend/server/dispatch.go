package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"runtime/debug"
	"sort"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

var errorType = reflect.TypeFor[error]()

// method is one callable entry of the bound facade, resolved once in New.
type method struct {
	name      string
	fn        reflect.Value // the method expression: the receiver is its first argument
	in        []reflect.Type
	variadic  bool
	hasResult bool // a value T is returned (first result)
	hasErr    bool // the last result is an error
}

// skippedMethod is an exported method that cannot be reached with JSON arguments.
type skippedMethod struct{ name, reason string }

// Methods lists the names callable at POST /api/<Method>, sorted; the facade's test can
// compare it with the Wails bindings so there stays one list.
func (s *Server) Methods() []string {
	out := make([]string, 0, len(s.methods))
	for n := range s.methods {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// buildMethods reflects over every exported method of bound. Methods whose parameters
// cannot come from JSON (contexts, funcs, channels, non-empty interfaces) or whose results
// are not (), (T), (error) or (T, error) are skipped and reported.
func buildMethods(bound any) (map[string]*method, []skippedMethod) {
	out := map[string]*method{}
	if bound == nil {
		return out, nil
	}
	t := reflect.TypeOf(bound)
	var skipped []skippedMethod
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		if !m.IsExported() {
			continue
		}
		ft := reflect.ValueOf(bound).Method(i).Type() // without the receiver
		e := &method{name: m.Name, fn: m.Func, variadic: ft.IsVariadic()}
		if reason := e.init(ft); reason != "" {
			skipped = append(skipped, skippedMethod{name: m.Name, reason: reason})
			continue
		}
		out[m.Name] = e
	}
	return out, skipped
}

func (m *method) init(ft reflect.Type) string {
	for i := 0; i < ft.NumIn(); i++ {
		p := ft.In(i)
		if m.variadic && i == ft.NumIn()-1 {
			p = p.Elem()
		}
		if !jsonDecodable(p) {
			return fmt.Sprintf("parameter %d (%s) cannot be decoded from JSON", i+1, p)
		}
		m.in = append(m.in, ft.In(i))
	}
	switch n := ft.NumOut(); {
	case n == 0:
	case n == 1 && ft.Out(0).Implements(errorType):
		m.hasErr = true
	case n == 1:
		m.hasResult = true
	case n == 2 && ft.Out(1).Implements(errorType):
		m.hasResult, m.hasErr = true, true
	default:
		return "results must be (), (T), (error) or (T, error)"
	}
	if m.hasResult {
		if k := ft.Out(0).Kind(); k == reflect.Chan || k == reflect.Func || k == reflect.UnsafePointer {
			return fmt.Sprintf("result %s cannot be encoded as JSON", ft.Out(0))
		}
	}
	return ""
}

func jsonDecodable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128:
		return false
	case reflect.Interface:
		return t.NumMethod() == 0 // any, but not context.Context or io.Reader
	}
	return true
}

// decodeArgs turns the request body (a JSON array, or empty for no arguments) into the
// method's parameter values.
func (m *method) decodeArgs(body []byte) ([]reflect.Value, *apperr.Error) {
	body = bytes.TrimSpace(body)
	var raw []json.RawMessage
	if len(body) > 0 && !bytes.Equal(body, []byte("null")) {
		if body[0] != '[' {
			return nil, badBody("the body of %s must be a JSON array of arguments", m.name)
		}
		if err := json.Unmarshal(body, &raw); err != nil {
			return nil, badBody("the body of %s is not a JSON array: %v", m.name, err)
		}
	}
	n := len(m.in)
	switch {
	case m.variadic && len(raw) < n-1:
		return nil, badBody("%s takes at least %d arguments, got %d", m.name, n-1, len(raw))
	case !m.variadic && len(raw) != n:
		return nil, badBody("%s takes %d arguments, got %d", m.name, n, len(raw))
	}
	vals := make([]reflect.Value, len(raw))
	for i, r := range raw {
		var t reflect.Type
		if m.variadic && i >= n-1 {
			t = m.in[n-1].Elem()
		} else {
			t = m.in[i]
		}
		p := reflect.New(t)
		if err := json.Unmarshal(r, p.Interface()); err != nil {
			return nil, badBody("argument %d of %s: %v", i+1, m.name, err)
		}
		vals[i] = p.Elem()
	}
	return vals, nil
}

// call runs the method on recv, turning a panic into an internal error so the server
// keeps going.
func (m *method) call(recv reflect.Value, args []reflect.Value, onPanic func(p any, stack []byte)) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			onPanic(p, debug.Stack())
			result, err = nil, apperr.New(apperr.Internal, "%s panicked: %v", m.name, p)
		}
	}()
	out := m.fn.Call(append([]reflect.Value{recv}, args...))
	if m.hasErr {
		if e := out[len(out)-1]; !isNil(e) {
			return nil, e.Interface().(error)
		}
	}
	if m.hasResult {
		return out[0].Interface(), nil
	}
	return nil, nil
}

func isNil(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

func badBody(format string, args ...any) *apperr.Error {
	msg := fmt.Sprintf(format, args...)
	return apperr.New(apperr.BadRequestBody, "%s", msg).WithParam("message", msg)
}

// serveCall handles POST /api/<name>.
func (s *Server) serveCall(w http.ResponseWriter, r *http.Request, name string) {
	start := time.Now()
	m, ok := s.methods[name]
	if !ok {
		s.writeError(w, r, apperr.New(apperr.MethodUnknown, "no bound method %q", name).WithParam("method", name))
		return
	}
	if r.ContentLength > s.cfg.MaxBodyBytes {
		s.writeError(w, r, tooLarge(s.cfg.MaxBodyBytes))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			s.writeError(w, r, tooLarge(s.cfg.MaxBodyBytes))
			return
		}
		s.writeError(w, r, badBody("reading the body of %s: %v", name, err))
		return
	}
	args, aerr := m.decodeArgs(body)
	if aerr != nil {
		s.writeError(w, r, aerr)
		return
	}
	ctx, done := s.callContext(r)
	defer done()
	result, err := m.call(s.receiver(ctx), args, s.logPanic(name))
	if err != nil {
		status := s.writeError(w, r, err)
		s.log.Debug("serve: call", "method", name, "status", status, "dur", time.Since(start))
		return
	}
	b, merr := json.Marshal(struct {
		Result any `json:"result"`
	}{result})
	if merr != nil {
		s.writeError(w, r, apperr.Wrap(merr, apperr.Internal, "encode the result of %s", name))
		return
	}
	writeJSONBytes(w, http.StatusOK, s.cfg.Redact.JSON(b))
	s.log.Debug("serve: call", "method", name, "status", http.StatusOK, "dur", time.Since(start))
}

// callContext is a call's context: it ends when the client gives up on the request (a
// closed tab, a cancelled fetch) or when the server is stopped.
func (s *Server) callContext(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	s.mu.Lock()
	base := s.base
	s.mu.Unlock()
	if base == nil {
		return ctx, cancel
	}
	stop := context.AfterFunc(base, cancel)
	return ctx, func() { stop(); cancel() }
}

// receiver is the facade a call runs on: bound to ctx when the facade is a PerCall.
func (s *Server) receiver(ctx context.Context) reflect.Value {
	if s.forCall == nil {
		return s.bound
	}
	return reflect.ValueOf(s.forCall(ctx))
}

func tooLarge(limit int64) *apperr.Error {
	return apperr.New(apperr.BodyTooLarge, "request body over %d bytes", limit).WithParam("limit", limit)
}

// logPanic logs a bound method's panic with its stack; the caller answers with the
// Internal error method.call made of it.
func (s *Server) logPanic(method string) func(p any, stack []byte) {
	return func(p any, stack []byte) {
		s.log.Error("serve: bound method panicked", "method", method, "panic", fmt.Sprint(p), "stack", string(stack))
	}
}
