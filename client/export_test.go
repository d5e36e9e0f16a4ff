package client

import (
	"crypto/sha256"
	"net/http"
	"time"
)

// SetClock sets the clock a verifying client checks timestamps with.
func SetClock(c *Client, now func() time.Time) {
	if c.verifier != nil {
		c.verifier.now = now
	}
}

// CheckAnswer verifies an answer as c does: res answers req, which was
// sent with nonce and a body whose SHA-256 is requestBody; body is the
// answer's body.
func CheckAnswer(c *Client, req *http.Request, res *http.Response, nonce string, requestBody, body []byte, received time.Time) error {
	sum := sha256.Sum256(body)
	return c.verifier.check(&answer{req: req, res: res, nonce: nonce, requestBody: requestBody, received: received}, sum[:])
}
