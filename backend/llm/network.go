package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Proxy choices of a provider besides a URL.
const (
	ProxySystem = "system" // the environment's HTTP(S)_PROXY / NO_PROXY
	ProxyNone   = "none"   // always direct
)

// Header is a custom header a provider's requests carry (gateways, OpenRouter's
// HTTP-Referer, an organisation id). A secret one's value lives in the secret store and is
// never sent back: Value is then empty and Set says whether one is stored.
type Header struct {
	Name   string `json:"name"`
	Value  string `json:"value,omitempty"`
	Secret bool   `json:"secret,omitempty"`
	Set    bool   `json:"set,omitempty"`
}

// maxHeaders bounds a provider's custom headers.
const maxHeaders = 20

var (
	headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$")
	// Headers Cairn sets itself, or that would break the request.
	reservedHeaders = map[string]bool{"Host": true, "Content-Length": true, "Content-Type": true, "Transfer-Encoding": true,
		"Connection": true, "Upgrade": true, "Te": true, "Trailer": true, "Keep-Alive": true, "Proxy-Authorization": true}
	// A header whose name says it carries a credential is kept secret whatever the form says.
	credentialHeader = regexp.MustCompile(`(?i)auth|key|token|secret|cookie|password|session`)
)

// HeaderSecretName is the secret-store name of a provider's secret header value.
func HeaderSecretName(providerID, header string) string {
	return "provider." + providerID + ".header." + http.CanonicalHeaderKey(header)
}

// normalizeHeaders checks the headers of a save. A secret header without a value keeps
// the stored one (keep lists them); writes are the secret values to store.
func normalizeHeaders(in []Header) (out []Header, writes map[string]string, err error) {
	if len(in) > maxHeaders {
		return nil, nil, invalid(fmt.Sprintf("at most %d custom headers", maxHeaders))
	}
	writes = map[string]string{}
	seen := map[string]bool{}
	for _, h := range in {
		name := http.CanonicalHeaderKey(strings.TrimSpace(h.Name))
		switch {
		case !headerName.MatchString(name):
			return nil, nil, invalid(fmt.Sprintf("%s is not a header name", apperr.Quote(h.Name)))
		case reservedHeaders[name]:
			return nil, nil, invalid(fmt.Sprintf("the %s header is set by Cairn", name))
		case seen[name]:
			return nil, nil, invalid(fmt.Sprintf("the %s header is given twice", name))
		case strings.ContainsAny(h.Value, "\r\n\x00") || len(h.Value) > 4096:
			return nil, nil, invalid(fmt.Sprintf("the value of %s must be one line of at most 4096 bytes", name))
		}
		seen[name] = true
		secret := h.Secret || credentialHeader.MatchString(name)
		value := strings.TrimSpace(h.Value)
		if secret {
			if value != "" {
				writes[name] = value
			}
			value = ""
		}
		out = append(out, Header{Name: name, Value: value, Secret: secret})
	}
	return out, writes, nil
}

// normalizeProxy accepts system, none or an http, https or socks5 URL with a host.
func normalizeProxy(raw string) (string, error) {
	p := strings.TrimSpace(raw)
	switch strings.ToLower(p) {
	case "", ProxySystem:
		return ProxySystem, nil
	case ProxyNone:
		return ProxyNone, nil
	}
	u, err := url.Parse(p)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5") || u.Path != "" && u.Path != "/" {
		return "", invalid("the proxy must be system, none, or a URL such as http://proxy.example:8080 or socks5://127.0.0.1:1080")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// proxyFunc is the http.Transport Proxy of a choice.
func proxyFunc(choice string) func(*http.Request) (*url.URL, error) {
	switch choice {
	case ProxySystem, "":
		return http.ProxyFromEnvironment
	case ProxyNone:
		return nil
	}
	u, err := url.Parse(choice)
	if err != nil {
		return func(*http.Request) (*url.URL, error) { return nil, fmt.Errorf("proxy %s: %w", choice, err) }
	}
	return http.ProxyURL(u)
}

// httpFor is the client of a proxy choice: the service's own for system, else one made
// from it once per choice and kept (its connections are pooled).
func (s *Service) httpFor(choice string) *http.Client {
	if choice == ProxySystem || choice == "" {
		return s.http
	}
	mt, ok := s.http.Transport.(*metaTransport)
	if !ok {
		return s.http // a client handed in whole (tests): its transport decides
	}
	base, ok := mt.base.(*http.Transport)
	if !ok {
		return s.http
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.proxied[choice]; ok {
		return c
	}
	b := base.Clone()
	b.Proxy = proxyFunc(choice)
	c := &http.Client{Transport: &metaTransport{base: b}}
	s.proxied[choice] = c
	return c
}

// requestHeaders are a provider's headers with the secret values read from the store.
func (s *Service) requestHeaders(p Provider) (http.Header, error) {
	if len(p.Headers) == 0 {
		return nil, nil
	}
	h := http.Header{}
	for _, x := range p.Headers {
		v := x.Value
		if x.Secret {
			got, ok, err := s.secrets.Get(HeaderSecretName(p.ID, x.Name))
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			v = got
		}
		h.Set(x.Name, v)
	}
	return h, nil
}

// markSetHeaders fills in Set for the secret headers that have a stored value.
func (s *Service) markSetHeaders(p *Provider) {
	for i, h := range p.Headers {
		if h.Secret {
			_, ok, err := s.secrets.Get(HeaderSecretName(p.ID, h.Name))
			p.Headers[i].Set = ok && err == nil
		}
	}
}

func headersJSON(hs []Header) string {
	if hs == nil {
		hs = []Header{}
	}
	b, _ := json.Marshal(hs)
	return string(b)
}

// WithHeaders makes every request of the client carry h (a custom header wins over one
// go-openai sets, Authorization included).
func WithHeaders(h http.Header) ClientOption { return func(c *Client) { c.headers = h } }

// network is the headers and proxy a save stores, and the secret header values it writes.
type network struct {
	headers []Header
	writes  map[string]string
	proxy   string
}

// saveNetwork reads a save's headers and proxy; nil headers keep the stored ones, as does
// an empty proxy on an existing provider.
func saveNetwork(in ProviderInput, existing *Provider) (network, error) {
	var n network
	var err error
	if in.Headers == nil && existing != nil {
		n.headers, n.writes = existing.Headers, map[string]string{}
	} else if n.headers, n.writes, err = normalizeHeaders(in.Headers); err != nil {
		return network{}, err
	}
	proxy := in.Proxy
	if strings.TrimSpace(proxy) == "" && existing != nil {
		proxy = existing.Proxy
	}
	if n.proxy, err = normalizeProxy(proxy); err != nil {
		return network{}, err
	}
	return n, nil
}

// storeHeaderSecrets writes the typed secret values and removes the ones of headers that
// are gone or no longer secret.
func (s *Service) storeHeaderSecrets(ctx context.Context, id string, n network, existing *Provider) error {
	for name, v := range n.writes {
		if err := s.secrets.Set(ctx, HeaderSecretName(id, name), v); err != nil {
			return err
		}
	}
	if existing == nil {
		return nil
	}
	keep := map[string]bool{}
	for _, h := range n.headers {
		keep[h.Name] = h.Secret
	}
	for _, h := range existing.Headers {
		if h.Secret && !keep[h.Name] {
			_ = s.secrets.Delete(ctx, HeaderSecretName(id, h.Name))
		}
	}
	return nil
}
