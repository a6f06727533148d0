// Package buildinfo reports the version of this binary, from -ldflags or the Go build info.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// version is set at link time: -ldflags "-X github.com/cairn-app/cairn/backend/buildinfo.version=v0.1.0".
var version = "dev"

// Info describes this binary.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Get reads the version and the VCS revision recorded by the Go toolchain.
func Get() Info {
	in := Info{Version: version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				in.Commit = s.Value[:12]
			}
		}
	}
	return in
}
