package access

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// UserDetail is everything an administrator sees about a user.
type UserDetail struct {
	User
	Membership  Membership
	Ban         *Ban
	Devices     []Device
	LastLogin   *LastLogin
	Activations []Activation
}

// UserFilter selects users: UsernamePrefix keeps those whose username
// starts with it, ignoring case.
type UserFilter struct {
	UsernamePrefix string
}

// ListUsers lists an application's users ordered by username (ignoring
// case), after the cursor of a previous page.
func (s *Service) ListUsers(ctx context.Context, appID string, f UserFilter, after string, limit int) (Page[User], error) {
	if _, err := s.App(ctx, appID); err != nil {
		return Page[User]{}, err
	}
	cur, ok := ParseUserCursor(after)
	if !ok {
		return Page[User]{}, Invalid(FieldError{"after", "is not a cursor of this listing"})
	}
	limit = clampPage(limit)
	users, err := s.store.Users(ctx, appID, UsernameKey(f.UsernamePrefix), cur, limit)
	if err != nil {
		return Page[User]{}, wrapStore(err, "listing users")
	}
	page := Page[User]{Items: users}
	if len(users) == limit {
		last := users[len(users)-1]
		page.Next = UserCursor{UsernameKey: UsernameKey(last.Username), UserID: last.ID}.String()
	}
	return page, nil
}

// Users lists an application's users ordered by username after the user
// with ID after, or the one with this username.
func (s *Service) Users(ctx context.Context, appID, username, after string, limit int) ([]User, error) {
	if _, err := s.App(ctx, appID); err != nil {
		return nil, err
	}
	var cur UserCursor
	if after != "" {
		u, err := s.UserOf(ctx, appID, after)
		if err != nil {
			return nil, err
		}
		cur = UserCursor{UsernameKey: UsernameKey(u.Username), UserID: u.ID}
	}
	key := UsernameKey(username)
	users, err := s.store.Users(ctx, appID, key, cur, clampPage(limit))
	if err != nil || username == "" {
		return users, wrapStore(err, "listing users")
	}
	exact := users[:0]
	for _, u := range users {
		if UsernameKey(u.Username) == key {
			exact = append(exact, u)
		}
	}
	return exact, nil
}

// UserActivations lists a user's ledger in append order after the cursor.
func (s *Service) UserActivations(ctx context.Context, appID, userID, after string, limit int) (Page[Activation], error) {
	if _, err := s.UserOf(ctx, appID, userID); err != nil {
		return Page[Activation]{}, err
	}
	p, err := s.store.Activations(ctx, userID, after, clampPage(limit))
	return p, wrapStore(err, "listing activations")
}

// AppCounts counts an application's licenses (used and unused), users and
// active members.
func (s *Service) AppCounts(ctx context.Context, appID string) (AppCounts, error) {
	if _, err := s.App(ctx, appID); err != nil {
		return AppCounts{}, err
	}
	c, err := s.store.AppCounts(ctx, appID, s.Now())
	return c, wrapStore(err, "counting")
}

// MaxActivityDays bounds the days ActivityByDay reports.
const MaxActivityDays = 366

// ActivityByDay reports an application's sign-ups and license activations
// per UTC day for the days days up to and including today.
func (s *Service) ActivityByDay(ctx context.Context, appID string, days int) ([]DayActivity, error) {
	if days < 1 || days > MaxActivityDays {
		return nil, Invalid(FieldError{"days", fmt.Sprintf("must be 1 to %d", MaxActivityDays)})
	}
	if _, err := s.App(ctx, appID); err != nil {
		return nil, err
	}
	today := s.Now().UTC().Truncate(24 * time.Hour)
	a, err := s.store.ActivityByDay(ctx, appID, today.AddDate(0, 0, 1-days), days)
	return a, wrapStore(err, "counting activity by day")
}

// UserOf returns an application's user.
func (s *Service) UserOf(ctx context.Context, appID, userID string) (*User, error) {
	if _, err := uuid.Parse(userID); err != nil {
		return nil, notFound("user")
	}
	u, err := s.store.UserByID(ctx, userID)
	if errors.Is(err, ErrNotFound) || (err == nil && u.AppID != appID) {
		return nil, notFound("user")
	}
	return u, wrapStore(err, "reading user")
}

// UserDetail returns a user with membership, ban, devices, last login and
// ledger, read fresh from the store.
func (s *Service) UserDetail(ctx context.Context, appID, userID string) (*UserDetail, error) {
	app, err := s.App(ctx, appID)
	if err != nil {
		return nil, err
	}
	u, err := s.UserOf(ctx, appID, userID)
	if err != nil {
		return nil, err
	}
	d := &UserDetail{User: *u}
	if d.Ban, err = s.store.BanOf(ctx, userID); err != nil && !errors.Is(err, ErrNotFound) {
		return nil, wrapStore(err, "reading ban")
	}
	if d.LastLogin, err = s.store.LastLoginOf(ctx, userID); err != nil && !errors.Is(err, ErrNotFound) {
		return nil, wrapStore(err, "reading last login")
	}
	ledger, err := s.store.Ledger(ctx, userID)
	if err != nil {
		return nil, wrapStore(err, "reading ledger")
	}
	d.Activations = DistinctActivations(ledger)
	d.Membership = MembershipOf(ledger)
	for slot := 0; slot < max(app.MaxDevices, 1); slot++ {
		dev, err := s.store.DeviceInSlot(ctx, userID, slot)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, wrapStore(err, "reading devices")
		}
		d.Devices = append(d.Devices, *dev)
	}
	return d, nil
}

// BanUser bans a user and ends all their sessions at once.
func (s *Service) BanUser(ctx context.Context, appID, userID, reason string) error {
	if _, err := s.UserOf(ctx, appID, userID); err != nil {
		return err
	}
	if len(reason) > 1000 {
		return Invalid(FieldError{"reason", "must be at most 1000 bytes"})
	}
	ban := &Ban{UserID: userID, Reason: strings.TrimSpace(reason), At: s.Now()}
	p, err := s.journal(ctx, Event{Kind: EventUserBanned, AppID: appID, UserID: userID, After: map[string]any{"reason": ban.Reason}})
	if err != nil {
		return err
	}
	if err := s.store.InsertBan(ctx, ban); err != nil && !errors.Is(err, ErrDuplicate) {
		p.failed(err)
		return wrapStore(err, "banning user")
	}
	defer p.tell(ctx)
	return wrapStore(s.store.DeleteUserSessions(ctx, userID), "ending sessions")
}

// UnbanUser lifts a ban.
func (s *Service) UnbanUser(ctx context.Context, appID, userID string) error {
	if _, err := s.UserOf(ctx, appID, userID); err != nil {
		return err
	}
	return s.commit(ctx, func(ctx context.Context) error {
		if err := s.store.DeleteBan(ctx, userID); err != nil && !errors.Is(err, ErrNotFound) {
			return wrapStore(err, "unbanning user")
		}
		return nil
	}, Event{Kind: EventUserUnbanned, AppID: appID, UserID: userID})
}

// ResetDevices frees all of a user's device slots and ends the user's
// sessions, which were bound to those devices.
func (s *Service) ResetDevices(ctx context.Context, appID, userID string) error {
	if _, err := s.UserOf(ctx, appID, userID); err != nil {
		return err
	}
	p, err := s.journal(ctx, Event{Kind: EventDevicesReset, AppID: appID, UserID: userID})
	if err != nil {
		return err
	}
	defer p.tell(ctx)
	if err := s.store.DeleteDevices(ctx, userID); err != nil {
		return wrapStore(err, "resetting devices")
	}
	return wrapStore(s.store.DeleteUserSessions(ctx, userID), "ending sessions")
}

// EndSessions ends all of a user's sessions.
func (s *Service) EndSessions(ctx context.Context, appID, userID string) error {
	if _, err := s.UserOf(ctx, appID, userID); err != nil {
		return err
	}
	p, err := s.journal(ctx, Event{Kind: EventSessionsEnded, AppID: appID, UserID: userID})
	if err != nil {
		return err
	}
	defer p.tell(ctx)
	return wrapStore(s.store.DeleteUserSessions(ctx, userID), "ending sessions")
}

// GrantRequest is an administrator's grant of membership time or lifetime.
type GrantRequest struct {
	Grant
	Note string
}

// GrantUser appends an administrator's grant to the user's ledger.
func (s *Service) GrantUser(ctx context.Context, appID, userID string, req GrantRequest) (*Activation, error) {
	if _, err := s.UserOf(ctx, appID, userID); err != nil {
		return nil, err
	}
	if err := req.Grant.Validate(); err != nil {
		return nil, err
	}
	if len(req.Note) > 1000 {
		return nil, Invalid(FieldError{"note", "must be at most 1000 bytes"})
	}
	a := &Activation{ID: uuid.NewString(), AppID: appID, UserID: userID, Type: ActivationGrant, OccurredAt: s.Now(),
		Minutes: req.Minutes, GrantsLifetimeAccess: req.GrantsLifetimeAccess, RevokesLifetimeAccess: req.RevokesLifetimeAccess, Note: req.Note}
	err := s.commit(ctx, func(ctx context.Context) error { return wrapStore(s.store.AppendActivation(ctx, a), "granting") },
		Event{Kind: EventMembershipGranted, AppID: appID, UserID: userID, After: grantOf(a)})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// DeleteUser deletes a user. A tombstone is written first, so that no
// repair of an interrupted write can bring the user back; the licenses the
// user activated stay used.
func (s *Service) DeleteUser(ctx context.Context, appID, userID string) error {
	u, err := s.UserOf(ctx, appID, userID)
	if err != nil {
		return err
	}
	p, err := s.journal(ctx, Event{Kind: EventUserDeleted, AppID: appID, UserID: userID, Username: u.Username, Before: map[string]any{"username": u.Username}})
	if err != nil {
		return err
	}
	if err := s.store.MarkUserDeleted(ctx, userID); err != nil {
		p.failed(err)
		return wrapStore(err, "marking user deleted")
	}
	// The tombstone already makes the user unknown everywhere.
	defer p.tell(ctx)
	steps := []struct {
		what string
		do   func() error
	}{
		{"ending sessions", func() error { return s.store.DeleteUserSessions(ctx, userID) }},
		{"deleting account", func() error { return s.store.DeleteAccount(ctx, appID, UsernameKey(u.Username)) }},
		{"deleting devices", func() error { return s.store.DeleteDevices(ctx, userID) }},
		{"deleting ledger", func() error { return s.store.DeleteLedger(ctx, userID) }},
		{"deleting ban", func() error { return s.store.DeleteBan(ctx, userID) }},
		{"deleting last login", func() error { return s.store.DeleteLogin(ctx, userID) }},
		{"deleting user", func() error { return s.store.DeleteUser(ctx, userID) }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil && !errors.Is(err, ErrNotFound) {
			return wrapStore(err, st.what)
		}
	}
	return nil
}
