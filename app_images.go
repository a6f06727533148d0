package main

import "github.com/cairn-app/cairn/backend/remoteimage"

// FetchImage loads a remote image of an answer or a tool result the user asked to see:
// from a public internet address only, an image type, up to a size, as a data: URL (the
// window's Content-Security-Policy lets it load no image from another host itself).
func (a *App) FetchImage(url string) (remoteimage.Image, error) {
	return a.s.Images.Fetch(a.ctx, url)
}

// FetchFavicon loads the icon of the site a web search result is on, for its card and the
// citations of an answer, while the user has site icons on (websearch.favicons, else
// favicons_off): only the site's /favicon.ico, from a public address, as a data: URL.
func (a *App) FetchFavicon(pageURL string) (remoteimage.Image, error) {
	return a.s.Favicons.Get(a.ctx, pageURL)
}
