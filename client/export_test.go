package client

import "time"

// SetClock sets the clock a verifying client checks timestamps with.
func SetClock(c *Client, now func() time.Time) {
	if c.verifier != nil {
		c.verifier.now = now
	}
}
