package main

import (
	"runtime/debug"
	"testing"
)

// -ldflags -X values win; what they leave empty comes from the toolchain's stamp.
func TestVersionFromBuildInfo(t *testing.T) {
	info := &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := fillFromBuildInfo(versionInfo{}, info)
	if got.Version != "v0.3.0" || got.Commit != "abc123-dirty" || got.Date != "2026-01-02T03:04:05Z" {
		t.Errorf("from the build info: %+v", got)
	}
	got = fillFromBuildInfo(versionInfo{Version: "v1.0.0", Commit: "def456", Date: "2026-02-03T00:00:00Z"}, info)
	if got.Version != "v1.0.0" || got.Commit != "def456" || got.Date != "2026-02-03T00:00:00Z" {
		t.Errorf("-ldflags values replaced: %+v", got)
	}
}
