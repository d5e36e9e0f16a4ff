package access

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"golang.org/x/crypto/argon2"
)

// MaxPasswordBytes bounds the work an attacker can ask of the hasher.
const MaxPasswordBytes = 1024

// Argon2Params are argon2id cost parameters.
type Argon2Params struct {
	MemoryKiB   uint32
	Iterations  uint32
	Parallelism uint8
}

// OWASPArgon2 is the minimum the OWASP password storage cheat sheet
// recommends for argon2id: 19 MiB, 2 iterations, 1 lane.
var OWASPArgon2 = Argon2Params{MemoryKiB: 19 * 1024, Iterations: 2, Parallelism: 1}

// PasswordHasher hashes and verifies passwords with argon2id, running at most
// a bounded number of hashes at once so a login storm cannot exhaust memory,
// and letting a bounded number wait: past that, a hash is refused at once
// (ErrHashQueueFull) rather than making every login wait seconds.
type PasswordHasher struct {
	params  Argon2Params
	slots   chan struct{} // one per running hash
	tickets chan struct{} // one per running or waiting hash
	dummy   string
	// observer, when set, is told of waits and hash times.
	observer Observer
}

// NewPasswordHasher returns a hasher with the given parameters that runs at
// most concurrency hashes at once (GOMAXPROCS when zero) and lets at most
// queue more wait for a slot (DefaultHashQueuePerSlot × concurrency when
// zero).
func NewPasswordHasher(params Argon2Params, concurrency, queue int) *PasswordHasher {
	if concurrency <= 0 {
		concurrency = runtime.GOMAXPROCS(0)
	}
	if queue <= 0 {
		queue = DefaultHashQueuePerSlot * concurrency
	}
	h := &PasswordHasher{params: params, slots: make(chan struct{}, concurrency), tickets: make(chan struct{}, concurrency+queue)}
	h.dummy = h.hashWithSalt([]byte("dummy password for unknown users"), make([]byte, 16))
	return h
}

// Hash returns the PHC string of password.
func (h *PasswordHasher) Hash(ctx context.Context, password string) (string, error) {
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	return h.hashInSlot(password)
}

// HashIfIdle is Hash when a hashing slot is free at once; ok is false,
// with nothing hashed, when every slot is busy or the salt cannot be read.
// For work that can wait for a quieter moment (a rehash).
func (h *PasswordHasher) HashIfIdle(password string) (hash string, ok bool) {
	if !h.tryAcquire() {
		return "", false
	}
	hash, err := h.hashInSlot(password)
	return hash, err == nil
}

// hashInSlot hashes password under a new salt in the slot the caller
// acquired, and releases it.
func (h *PasswordHasher) hashInSlot(password string) (string, error) {
	defer h.release()
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("reading salt: %w", err)
	}
	defer h.timeHash(time.Now())
	return h.hashWithSalt([]byte(password), salt), nil
}

// Verify reports whether password matches encoded. An empty encoded hash
// (an unknown user, or a user without a password) is checked against a dummy
// hash, so that the answer takes the same time and is always false.
func (h *PasswordHasher) Verify(ctx context.Context, password, encoded string) (bool, error) {
	target, known := encoded, encoded != ""
	if !known {
		target = h.dummy
	}
	p, salt, want, err := decodeArgon2(target)
	if err != nil {
		return false, err
	}
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	start := time.Now()
	got := argon2.IDKey([]byte(password), salt, p.Iterations, p.MemoryKiB, p.Parallelism, uint32(len(want)))
	h.timeHash(start)
	h.release()
	return known && subtle.ConstantTimeCompare(got, want) == 1, nil
}

// Outdated reports whether encoded, a hash a password was just verified
// against, was made with less memory or fewer passes than the hasher's: a
// rehash then brings it up to today's. A stronger one is left as it is,
// so that instances whose settings differ (a rolling change) never undo
// each other's rehash, and lowering the settings weakens no stored hash.
func (h *PasswordHasher) Outdated(encoded string) bool {
	p, _, _, err := decodeArgon2(encoded)
	return err == nil && (p.MemoryKiB < h.params.MemoryKiB || p.Iterations < h.params.Iterations)
}

// DefaultHashQueuePerSlot is how many password checks may wait per hashing
// slot by default. A wait is that many hashes at most (about 0.8 s at the
// OWASP parameters, 25 ms a hash), and a waiting check holds no hashing
// memory: a burst such as 50 people signing up at once waits well under a
// second, while a storm larger than that is refused at once.
const DefaultHashQueuePerSlot = 32

// ErrHashQueueFull refuses a password check while as many are running and
// waiting as the hasher allows; the client may retry after a second.
var ErrHashQueueFull = &Error{Code: CodeUnavailable, Detail: "Too many passwords are being checked right now; try again shortly.",
	RetryAfter: time.Second}

func (h *PasswordHasher) acquire(ctx context.Context) error {
	select {
	case h.tickets <- struct{}{}:
	default:
		return ErrHashQueueFull
	}
	start := time.Now()
	select {
	case h.slots <- struct{}{}:
		if h.observer != nil {
			h.observer.HashWaited(time.Since(start))
		}
		return nil
	case <-ctx.Done():
		<-h.tickets
		return ctx.Err()
	}
}

// tryAcquire takes a hashing slot if one is free at once, without waiting
// and without taking a waiting place from the checks that do wait.
func (h *PasswordHasher) tryAcquire() bool {
	select {
	case h.tickets <- struct{}{}:
	default:
		return false
	}
	select {
	case h.slots <- struct{}{}:
		return true
	default:
		<-h.tickets
		return false
	}
}

// timeHash reports a hash that began at start.
func (h *PasswordHasher) timeHash(start time.Time) {
	if h.observer != nil {
		h.observer.Hashed(time.Since(start))
	}
}

func (h *PasswordHasher) release() {
	<-h.slots
	<-h.tickets
}

func (h *PasswordHasher) hashWithSalt(password, salt []byte) string {
	p := h.params
	key := argon2.IDKey(password, salt, p.Iterations, p.MemoryKiB, p.Parallelism, 32)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.MemoryKiB, p.Iterations, p.Parallelism,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

var errBadHash = errors.New("malformed argon2id hash")

func decodeArgon2(encoded string) (Argon2Params, []byte, []byte, error) {
	var p Argon2Params
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return p, nil, nil, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return p, nil, nil, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Iterations, &p.Parallelism); err != nil {
		return p, nil, nil, errBadHash
	}
	if p.MemoryKiB == 0 || p.MemoryKiB > 4<<20 || p.Iterations == 0 || p.Iterations > 64 || p.Parallelism == 0 {
		return p, nil, nil, errBadHash
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(key) < 16 {
		return p, nil, nil, errBadHash
	}
	return p, salt, key, nil
}
