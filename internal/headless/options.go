// Package headless holds what every headless Chromium the tests and the
// network lab start has in common: one place for the browser's quirks.
package headless

import (
	"slices"

	"github.com/chromedp/chromedp"
)

// Options are chromedp's defaults for Chromium bin with its profile in
// profile (a directory that exists), no sandbox, GPU, QUIC, first-run
// page or background services, and its temporary files under profile.
// Callers add their window size, throttling and origin flags.
func Options(bin, profile string) []chromedp.ExecAllocatorOption {
	return append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(profile),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// Chromium keeps its singleton socket in a directory under TMPDIR
		// and removes it only on a clean exit; a test's or a lab's browser
		// is killed, so in the shared /tmp they piled up (about 2000 in a
		// day of runs here). Under the profile they go with it.
		chromedp.Env("TMPDIR="+profile),
	)
}
