package access

import (
	"context"
	"errors"
	"fmt"
)

// Redemption is everything a license activation writes: the claim, for a
// license sign-up the new user, and the ledger entry.
type Redemption struct {
	Use        *LicenseUse
	Grant      Grant
	NewUser    *User // sign-up only: the user the license creates
	Activation Activation
}

// RedemptionSteps are the single writes a redemption is made of.
type RedemptionSteps interface {
	InsertLicenseUse(ctx context.Context, u *LicenseUse, g Grant) error
	MarkLicenseUsed(ctx context.Context, licenseID string) error
	InsertAccount(ctx context.Context, u *User) error
	InsertUser(ctx context.Context, u *User) error
	AppendActivation(ctx context.Context, a *Activation) error
}

// RedeemInOrder writes a redemption without a transaction, in the order
// that lets any later request finish it (see activation.go): the claim
// first, then the used mark, the account and the user, then the ledger
// entry. Only the claim can return ErrDuplicate.
func RedeemInOrder(ctx context.Context, st RedemptionSteps, r *Redemption) error {
	if err := st.InsertLicenseUse(ctx, r.Use, r.Grant); err != nil {
		return err
	}
	return finishRedemption(ctx, st, r)
}

// finishRedemption does the writes that follow a claim; each is idempotent.
func finishRedemption(ctx context.Context, st RedemptionSteps, r *Redemption) error {
	if err := st.MarkLicenseUsed(ctx, r.Use.LicenseID); err != nil {
		return fmt.Errorf("marking license used: %w", notDuplicate(err))
	}
	if r.NewUser != nil {
		if err := st.InsertAccount(ctx, r.NewUser); err != nil && !errors.Is(err, ErrDuplicate) {
			return fmt.Errorf("creating account: %w", err)
		}
		byID := *r.NewUser
		byID.PasswordHash = ""
		if err := st.InsertUser(ctx, &byID); err != nil && !errors.Is(err, ErrDuplicate) {
			return fmt.Errorf("creating user: %w", err)
		}
	}
	if err := st.AppendActivation(ctx, &r.Activation); err != nil {
		return fmt.Errorf("appending activation: %w", notDuplicate(err))
	}
	return nil
}

// notDuplicate keeps a later step's ErrDuplicate from reading as "the
// license is used".
func notDuplicate(err error) error {
	if errors.Is(err, ErrDuplicate) {
		return fmt.Errorf("%v", err)
	}
	return err
}

// redemptionOf is the redemption of a claimed use.
func redemptionOf(use *LicenseUse, g Grant) *Redemption {
	r := &Redemption{Use: use, Grant: g, Activation: activationOf(use, g)}
	if use.SignUp {
		r.NewUser = &User{ID: use.UserID, AppID: use.AppID, Username: use.Username, CreatedAt: use.OccurredAt}
	}
	return r
}
