package main

import "github.com/cairn-app/cairn/backend/remoteimage"

// FetchImage loads a remote image of an answer or a tool result the user asked to see:
// from a public internet address only, an image type, up to a size, as a data: URL (the
// window's Content-Security-Policy lets it load no image from another host itself).
func (a *App) FetchImage(url string) (remoteimage.Image, error) {
	return a.s.Images.Fetch(a.ctx, url)
}
