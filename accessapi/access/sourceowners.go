package access

import (
	"context"
	"strconv"
)

// Known sources (throttle.go) are recorded per account key, which is a
// username's, and per owner: the user (or administrator) that logged in.
// A username outlives its holder, so a source counts as known only while
// the owner it was recorded for still holds the account; the next user of
// a deleted user's name starts with no known source. The records of a
// deleted owner stay in the store, inert.

// userHolds is the sourceOwner of an application's accounts: an owner is
// a user ID, which holds its account while the user exists. Cached user
// states answer (dropped on every instance when the user is deleted); the
// store's word adds the user's tombstone, which is written before the
// account is deleted and so before its name can be taken again.
func (s *Service) userHolds(appID string) sourceOwner {
	return func(ctx context.Context, userID string, thorough bool) bool {
		if _, err := s.state(ctx, appID, userID); err != nil {
			return false
		}
		if !thorough {
			return true
		}
		deleted, err := s.store.IsUserDeleted(ctx, userID)
		return err == nil && !deleted
	}
}

// adminIncarnation names an administrator as the owner of known sources:
// the username and the creation time, so that an administrator deleted
// and created again under the same name is another owner.
func adminIncarnation(a *Admin) string {
	return a.Username + "@" + strconv.FormatInt(a.CreatedAt.UnixMilli(), 10)
}

// adminHolds is the sourceOwner of an administrator's sign-in account: the
// administrator of that name, read from the store (sign-ins are rare), is
// the owner's incarnation.
func (s *Service) adminHolds(username string) sourceOwner {
	return func(ctx context.Context, owner string, _ bool) bool {
		a, err := s.store.AdminByName(ctx, username)
		return err == nil && adminIncarnation(a) == owner
	}
}
