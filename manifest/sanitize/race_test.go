//go:build race

package sanitize_test

// raceDetector is on: corpus-wide measurements run on a smaller sample.
const raceDetector = true
