//go:build !race

package access_test

// raceDetector tells timing tests that the race detector slows the code
// they time (two to ten times, more on a loaded machine).
const raceDetector = false
