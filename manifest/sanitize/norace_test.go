//go:build !race

package sanitize_test

const raceDetector = false
