package access

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// The seller key scopes.
const (
	ScopeLicensesCreate = "licenses:create"
	ScopeLicensesRead   = "licenses:read"
	ScopeUsersRead      = "users:read"
	ScopeUsersWrite     = "users:write"
	ScopeContentWrite   = "content:write"
	ScopeAuditRead      = "audit:read"
)

// SellerKeyScopes are every scope a seller key may hold.
var SellerKeyScopes = []string{ScopeLicensesCreate, ScopeLicensesRead, ScopeUsersRead, ScopeUsersWrite, ScopeContentWrite, ScopeAuditRead}

// sellerKeyUseGrain is how often a key's last use is written: at most once
// a minute, so a busy key does not write on every request.
const sellerKeyUseGrain = time.Minute

// HasScope reports whether the key holds scope.
func (k *SellerKey) HasScope(scope string) bool { return slices.Contains(k.Scopes, scope) }

// NewSellerKey is a created key with its secret, which is shown once.
type NewSellerKey struct {
	SellerKey
	Secret string
}

// CreateSellerKey makes a key for an application with the given scopes.
func (s *Service) CreateSellerKey(ctx context.Context, appID, name string, scopes []string) (*NewSellerKey, error) {
	if _, err := s.App(ctx, appID); err != nil {
		return nil, err
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return nil, Invalid(FieldError{"name", "must be 1 to 100 characters"})
	}
	if len(scopes) == 0 {
		return nil, Invalid(FieldError{"scopes", "must name at least one scope"})
	}
	seen := map[string]bool{}
	var clean []string
	for _, sc := range scopes {
		if !slices.Contains(SellerKeyScopes, sc) {
			return nil, Invalid(FieldError{"scopes", "unknown scope " + sc})
		}
		if !seen[sc] {
			seen[sc] = true
			clean = append(clean, sc)
		}
	}
	secret := randomToken("sk_", 32)
	k := SellerKey{ID: uuid.NewString(), AppID: appID, Name: name, Scopes: clean, SecretHash: SecretHash(secret), CreatedAt: s.Now()}
	err := s.commit(ctx, func(ctx context.Context) error {
		return wrapStore(s.store.InsertSellerKey(ctx, &k), "creating seller key")
	},
		Event{Kind: EventSellerKeyCreated, AppID: appID, Target: k.ID, After: map[string]any{"name": k.Name, "scopes": strings.Join(k.Scopes, " ")}})
	if err != nil {
		return nil, err
	}
	return &NewSellerKey{SellerKey: k, Secret: secret}, nil
}

// SellerKeys lists an application's keys.
func (s *Service) SellerKeys(ctx context.Context, appID string) ([]SellerKey, error) {
	if _, err := s.App(ctx, appID); err != nil {
		return nil, err
	}
	ks, err := s.store.SellerKeys(ctx, appID)
	return ks, wrapStore(err, "listing seller keys")
}

// RevokeSellerKey deletes an application's key; it is refused from the
// next request on. It works whether or not the application still exists,
// so a key left behind by a deleted application can be revoked.
func (s *Service) RevokeSellerKey(ctx context.Context, appID, keyID string) error {
	ks, err := s.store.SellerKeys(ctx, appID)
	if err != nil {
		return wrapStore(err, "listing seller keys")
	}
	if !slices.ContainsFunc(ks, func(k SellerKey) bool { return k.ID == keyID }) {
		return Refusal(CodeNotFound, "There is no such seller key.")
	}
	return s.commit(ctx, func(ctx context.Context) error {
		if err := s.store.DeleteSellerKey(ctx, keyID); err != nil && !errors.Is(err, ErrNotFound) {
			return wrapStore(err, "revoking seller key")
		}
		return nil
	}, Event{Kind: EventSellerKeyRevoked, AppID: appID, Target: keyID})
}

// AuthenticateSellerKey returns the key whose secret this is. Wrong
// secrets are throttled per address, like application secrets, and like
// them the right one is never held back; keys are read from the store on
// every request, so a revoked key fails at once.
// The key's application is read too: a key whose application is gone (one
// left by a deletion cut short, or made before deletions took the keys)
// is refused like a wrong one.
func (s *Service) AuthenticateSellerKey(ctx context.Context, secret string) (*SellerKey, error) {
	k, err := s.store.SellerKeyByHash(ctx, SecretHash(secret))
	if errors.Is(err, ErrNotFound) {
		if err := s.throttle.missedSecret(clientNetwork(ctx)); err != nil {
			return nil, err
		}
		return nil, Refusal(CodeAuthenticationRequired, "The key is not valid.")
	}
	if err != nil {
		return nil, wrapStore(err, "reading seller key")
	}
	switch _, err := s.store.AppByID(ctx, k.AppID); {
	case errors.Is(err, ErrNotFound):
		return nil, Refusal(CodeAuthenticationRequired, "The key is not valid.")
	case err != nil:
		return nil, wrapStore(err, "reading the seller key's application")
	}
	now := s.Now()
	if now.Sub(k.LastUsedAt) >= sellerKeyUseGrain {
		at := now.Truncate(sellerKeyUseGrain)
		if err := s.store.RecordSellerKeyUse(ctx, k.ID, at); err == nil {
			k.LastUsedAt = at
		}
	}
	return k, nil
}
