package remoteimage

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Favicon limits: an icon is small, and a site without one must not hold a card up.
const (
	faviconMaxBytes = 100 << 10
	faviconTimeout  = 8 * time.Second
	faviconKeep     = 24 * time.Hour   // a fetched icon is reused this long
	faviconRetry    = 10 * time.Minute // a site without one is asked again after this
	faviconEntries  = 512
)

// FaviconOptions configure NewFavicons.
type FaviconOptions struct {
	// Options are the fetcher's (the dialer above all); sizes default to an icon's.
	Options
	// Enabled says whether the user turned site icons on (Settings → Web search). While it
	// is false nothing is fetched: the window shows a generic icon.
	Enabled func(ctx context.Context) bool
}

// Favicons fetches the icons of the sites a web search answered with, for the results and
// the citations of an answer. Only the site of a result is asked, at its fixed
// /favicon.ico: no address a page or a model wrote is followed, so an icon request says
// nothing but the site's name, which the search already showed. Through the same guard
// and limits as a remote image, as a data: URL, cached in memory per site. Safe for
// concurrent use; simultaneous requests for one site share one fetch.
type Favicons struct {
	f       *Fetcher
	enabled func(ctx context.Context) bool
	now     func() time.Time

	mu      sync.Mutex
	cache   map[string]faviconEntry
	flights map[string]*faviconFlight
}

type faviconEntry struct {
	img Image
	err error
	at  time.Time
}

type faviconFlight struct {
	done chan struct{}
	img  Image
	err  error
}

// NewFavicons returns a Favicons; a nil Enabled counts as off.
func NewFavicons(o FaviconOptions) *Favicons {
	if o.MaxBytes <= 0 {
		o.MaxBytes = faviconMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = faviconTimeout
	}
	return &Favicons{f: New(o.Options), enabled: o.Enabled, now: time.Now,
		cache: map[string]faviconEntry{}, flights: map[string]*faviconFlight{}}
}

// Get returns the icon of the site pageURL is on (http or https).
func (v *Favicons) Get(ctx context.Context, pageURL string) (Image, error) {
	if v.enabled == nil || !v.enabled(ctx) {
		return Image{}, apperr.New(apperr.FaviconsOff, "site icons are off (websearch.favicons)")
	}
	site, err := siteOf(pageURL)
	if err != nil {
		return Image{}, err
	}
	v.mu.Lock()
	if e, ok := v.cache[site]; ok && v.fresh(e) {
		v.mu.Unlock()
		return e.img, e.err
	}
	fl, ok := v.flights[site]
	if !ok {
		fl = &faviconFlight{done: make(chan struct{})}
		v.flights[site] = fl
		go v.fetch(site, fl)
	}
	v.mu.Unlock()
	select {
	case <-fl.done:
		return fl.img, fl.err
	case <-ctx.Done():
		return Image{}, apperr.Wrap(ctx.Err(), apperr.Canceled, "site icon of %s", site)
	}
}

// fetch runs on its own context, so a caller that leaves does not fail the others; the
// fetcher's timeout bounds it.
func (v *Favicons) fetch(site string, fl *faviconFlight) {
	fl.img, fl.err = v.f.Fetch(context.Background(), site+"/favicon.ico")
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.flights, site)
	if len(v.cache) >= faviconEntries {
		clear(v.cache)
	}
	v.cache[site] = faviconEntry{img: fl.img, err: fl.err, at: v.now()}
	close(fl.done)
}

func (v *Favicons) fresh(e faviconEntry) bool {
	keep := faviconKeep
	if e.err != nil {
		keep = faviconRetry
	}
	return v.now().Sub(e.at) < keep
}

// siteOf is scheme://host[:port] of an http(s) address: the one thing of it an icon
// request sends.
func siteOf(raw string) (string, error) {
	u, err := checkURL(raw)
	if err != nil {
		return "", err
	}
	return (&url.URL{Scheme: u.Scheme, Host: strings.ToLower(u.Host)}).String(), nil
}
