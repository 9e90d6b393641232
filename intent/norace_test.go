//go:build !race

package intent

const raceDetector = false
