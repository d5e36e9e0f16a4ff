package access

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
)

// UserView is a user as the client API shows it.
type UserView struct {
	ID         string
	AppID      string
	Username   string
	Membership Membership
}

func (st *userState) view() *UserView {
	return &UserView{ID: st.user.ID, AppID: st.user.AppID, Username: st.user.Username, Membership: st.membership}
}

// SignUpRequest is a password sign-up.
type SignUpRequest struct {
	Username   string
	Password   string
	HardwareID string
}

// SignUp creates a user with a username and password. The account insert is
// the unique (application, username key) claim: of concurrent sign-ups with
// one name exactly one succeeds.
func (s *Service) SignUp(ctx context.Context, app *App, req SignUpRequest) (*UserView, error) {
	var fields []FieldError
	if fe := ValidateUsername(req.Username); fe != nil {
		fields = append(fields, *fe)
	}
	if fe := validatePassword(app, req.Username, req.Password); fe != nil {
		fields = append(fields, *fe)
	}
	if fe := validateSignUpDevice(app, req.HardwareID); fe != nil {
		fields = append(fields, *fe)
	}
	if len(fields) > 0 {
		return nil, Invalid(fields...)
	}
	addr := clientNetwork(ctx)
	signUp, err := s.throttle.reserveSignUp(app, addr)
	if err != nil {
		return nil, err
	}
	defer signUp.release()
	// A taken name is refused before the hash, and counts against the
	// address like a sign-up: probing names or filling the hash queue with
	// sign-ups of a taken name costs the attacker its quota.
	taken := Refusal(CodeUsernameTaken, "The username is already taken.")
	if _, err := s.store.AccountByName(ctx, app.ID, UsernameKey(req.Username)); err == nil {
		signUp.keep()
		return nil, taken
	} else if !errors.Is(err, ErrNotFound) {
		return nil, wrapStore(err, "reading account")
	}
	hash, err := s.hasher.Hash(ctx, req.Password)
	if err != nil {
		return nil, err
	}
	u := &User{ID: uuid.NewString(), AppID: app.ID, Username: req.Username, PasswordHash: hash, CreatedAt: s.Now()}
	p, err := s.journal(ctx, Event{Kind: EventUserSignedUp, AppID: app.ID, UserID: u.ID, Username: u.Username})
	if err != nil {
		return nil, err
	}
	// The account is the sign-up: once it is written, the event is told
	// whatever follows.
	if err := s.store.InsertAccount(ctx, u); err != nil {
		p.failed(err)
		if errors.Is(err, ErrDuplicate) {
			signUp.keep()
			return nil, taken
		}
		return nil, wrapStore(err, "creating account")
	}
	signUp.keep() // the account exists
	defer p.tell(ctx)
	if err := s.ensureUser(ctx, u); err != nil {
		return nil, err
	}
	if err := s.checkDevice(ctx, app, u.ID, req.HardwareID); err != nil {
		return nil, err
	}
	s.throttle.remember(ctx, throttleKey("account", app.ID, UsernameKey(u.Username)), addr, deviceSource(app, req.HardwareID), u.ID)
	return &UserView{ID: u.ID, AppID: app.ID, Username: u.Username}, nil
}

// ensureUser writes the by-ID user document of an account; it is idempotent,
// so any later request can finish a sign-up that stopped half way.
func (s *Service) ensureUser(ctx context.Context, u *User) error {
	byID := *u
	byID.PasswordHash = ""
	if err := s.store.InsertUser(ctx, &byID); err != nil && !errors.Is(err, ErrDuplicate) {
		return wrapStore(err, "creating user")
	}
	return nil
}

func validateSignUpDevice(app *App, hardwareID string) *FieldError {
	switch {
	case !app.DeviceAuth:
		return nil
	case hardwareID == "":
		return &FieldError{"hardware_id", "is required for this application"}
	case !validHardwareID(hardwareID):
		return &FieldError{"hardware_id", "must be 1 to 256 printable characters without leading or trailing space"}
	}
	return nil
}

// generatedUsername names a user created from a license code. It is derived
// from the random user ID, so it cannot collide in practice.
func generatedUsername(userID string) string {
	return "user-" + strings.ReplaceAll(userID, "-", "")[:20]
}

// lastLoginTimeout bounds the best-effort write of the last login.
const lastLoginTimeout = 2 * time.Second
