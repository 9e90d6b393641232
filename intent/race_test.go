//go:build race

package intent

// raceDetector is on: it allocates on its own account, so allocation
// budgets are not checked.
const raceDetector = true
