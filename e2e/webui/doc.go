// Package webui is a browser test of the YuniKorn web UI on Paddock: it starts
// Paddock with a populated cluster and the UI's files served at / (the
// scheduler package's UIDir), drives Debian's chromium through every page of
// the UI with chromedp, and fails on a page error, a non-2xx /ws/ call, a
// redirect to the UI's error page, or a value rendered as Undefined, NaN,
// "Invalid date" or "<nil>".
//
// TestReplayReport reads the trace replay's HTML report (internal/replay,
// on a small synthetic trace) at 375, 1024 and 1920 px: no script error or
// console error, no request but the file itself, the fidelity table and
// score, every chart with lines and numeric tick labels, no chart text
// outside its chart and no box narrower than its content unless it
// scrolls. It needs chromium only.
//
//	WEBUI_DIR=../../../shared/peers/yunikorn-web go test ./...
//
// The test is skipped, saying why, when the UI build (WEBUI_DIR, by default
// ../shared/peers/yunikorn-web next to the checkout) or chromium is missing;
// the project's test script installs chromium and runs it when the build is
// there.
package webui
