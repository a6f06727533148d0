// Package remoteimage fetches an image an answer or a tool result points to, for a window
// whose Content-Security-Policy lets it show no image from another host: only when the
// user asks, only from public internet addresses (netguard), only image types, only up to
// a size, and handed back as a data: URL the window can show.
package remoteimage

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/netguard"
)

// Defaults for the zero values of Options.
const (
	DefaultMaxBytes = 5 << 20
	DefaultTimeout  = 20 * time.Second
	maxRedirects    = 5
	maxURLLength    = 8 << 10
)

// types are the content types shown: raster images and SVG, which an <img> renders
// without running its scripts or loading what it links to.
var types = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/avif": true,
	"image/bmp": true, "image/x-icon": true, "image/vnd.microsoft.icon": true, "image/svg+xml": true,
}

// sniffed are the types whose bytes Go's content sniffer recognises: a body that claims one
// of them must look like an image.
var sniffed = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/bmp": true}

// Image is a fetched image, ready to show.
type Image struct {
	URL         string `json:"url"`
	ContentType string `json:"contentType"`
	Size        int    `json:"size"`
	// DataURL is data:<type>;base64,<bytes>.
	DataURL string `json:"dataUrl"`
}

// Options configure New; zero values get the defaults.
type Options struct {
	// Dialer connects; nil is a netguard.Dialer with the system resolver (public addresses
	// only). Tests pass one whose Dial fails the test for anything but loopback.
	Dialer   *netguard.Dialer
	MaxBytes int64
	Timeout  time.Duration
}

// Fetcher fetches images; safe for concurrent use.
type Fetcher struct {
	client   *http.Client
	maxBytes int64
	timeout  time.Duration
}

// New returns a Fetcher. Proxies from the environment are not used: the guard must see
// the address it connects to.
func New(o Options) *Fetcher {
	if o.Dialer == nil {
		o.Dialer = &netguard.Dialer{}
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	tr := &http.Transport{
		DialContext:            o.Dialer.DialContext,
		Proxy:                  nil,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  15 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	client := &http.Client{
		Transport: tr,
		Jar:       nil,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return errors.New("too many redirects")
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to a %s: address", req.URL.Scheme)
			}
			return nil
		},
	}
	return &Fetcher{client: client, maxBytes: o.MaxBytes, timeout: o.Timeout}
}

// Fetch loads the image at raw (http or https).
func (f *Fetcher) Fetch(ctx context.Context, raw string) (Image, error) {
	u, err := checkURL(raw)
	if err != nil {
		return Image{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Image{}, invalidURL(raw)
	}
	req.Header.Set("Accept", "image/avif,image/webp,image/png,image/jpeg,image/gif,image/svg+xml;q=0.9,image/*;q=0.8")
	req.Header.Set("User-Agent", "Cairn")
	resp, err := f.client.Do(req)
	if err != nil {
		return Image{}, fetchError(u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Image{}, failed(u, fmt.Errorf("HTTP %d", resp.StatusCode))
	}
	ct, err := contentType(u, resp.Header.Get("Content-Type"))
	if err != nil {
		return Image{}, err
	}
	data, err := f.read(u, resp)
	if err != nil {
		return Image{}, err
	}
	if sniffed[ct] && !strings.HasPrefix(http.DetectContentType(data), "image/") {
		return Image{}, notAnImage(u, ct+" that is not one")
	}
	return Image{
		URL:         u.String(),
		ContentType: ct,
		Size:        len(data),
		DataURL:     "data:" + ct + ";base64," + base64.StdEncoding.EncodeToString(data),
	}, nil
}

// read takes the body up to the limit; over it is an error, never a cut image.
func (f *Fetcher) read(u *url.URL, resp *http.Response) ([]byte, error) {
	if resp.ContentLength > f.maxBytes {
		return nil, f.tooLarge(u)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return nil, fetchError(u, err)
	}
	if int64(len(data)) > f.maxBytes {
		return nil, f.tooLarge(u)
	}
	return data, nil
}

func checkURL(raw string) (*url.URL, error) {
	if len(raw) > maxURLLength {
		return nil, invalidURL(raw)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return nil, invalidURL(raw)
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

func contentType(u *url.URL, header string) (string, error) {
	mt, _, err := mime.ParseMediaType(header)
	mt = strings.ToLower(mt)
	if err != nil || !types[mt] {
		if header == "" {
			header = "no content type"
		}
		return "", notAnImage(u, header)
	}
	return mt, nil
}

func shortURL(raw string) string {
	if len(raw) > 200 {
		return raw[:200] + "…"
	}
	return raw
}

func invalidURL(raw string) error {
	return apperr.New(apperr.ImageURLInvalid, "image address %q is not http or https", shortURL(raw)).
		WithParam("url", shortURL(raw))
}

func fetchError(u *url.URL, err error) error {
	if netguard.IsBlocked(err) {
		return apperr.Wrap(err, apperr.ImageAddressRefused, "image %s", u.Redacted()).WithParam("host", u.Hostname())
	}
	return failed(u, err)
}

func failed(u *url.URL, err error) error {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = ue.Err.Error()
	}
	return apperr.Wrap(err, apperr.ImageFetchFailed, "image %s", u.Redacted()).
		WithParam("host", u.Hostname()).WithParam("message", msg)
}

func notAnImage(u *url.URL, what string) error {
	return apperr.New(apperr.ImageNotAnImage, "image %s: %s", u.Redacted(), what).
		WithParam("host", u.Hostname()).WithParam("type", what)
}

func (f *Fetcher) tooLarge(u *url.URL) error {
	mib := strconv.FormatInt(f.maxBytes>>20, 10) + " MiB"
	return apperr.New(apperr.ImageTooLarge, "image %s is over %s", u.Redacted(), mib).
		WithParam("host", u.Hostname()).WithParam("limit", mib)
}
