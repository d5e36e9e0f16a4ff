package access

import (
	"context"
	"errors"
	"fmt"
)

// MaxLicensesPerCall bounds one issue of licenses.
const MaxLicensesPerCall = 10000

// LicenseRequest issues licenses: Count new codes, or the given Codes.
type LicenseRequest struct {
	Count int
	Grant Grant
	Note  string
	Codes []string
}

// IssuedLicense is a new license with its code, shown only once.
type IssuedLicense struct {
	License
	Code string
}

// CreateLicenses issues licenses for an application.
func (s *Service) CreateLicenses(ctx context.Context, appID string, req LicenseRequest) ([]IssuedLicense, error) {
	if _, err := s.App(ctx, appID); err != nil {
		return nil, err
	}
	if err := req.Grant.Validate(); err != nil {
		return nil, err
	}
	if len(req.Note) > 1000 {
		return nil, Invalid(FieldError{"note", "must be at most 1000 bytes"})
	}
	codes := req.Codes
	if len(codes) == 0 {
		if req.Count < 1 || req.Count > MaxLicensesPerCall {
			return nil, Invalid(FieldError{"count", "must be 1 to 10000"})
		}
		codes = make([]string, req.Count)
		for i := range codes {
			codes[i] = NewLicenseCode()
		}
	} else if len(codes) > MaxLicensesPerCall {
		return nil, Invalid(FieldError{"codes", "must hold at most 10000 codes"})
	}
	now := s.Now()
	out := make([]IssuedLicense, len(codes))
	batch := make([]License, len(codes))
	seen := make(map[string]bool, len(codes))
	imported := len(req.Codes) > 0
	for i, code := range codes {
		id := s.licenseID(appID, code)
		if id == "" {
			return nil, Invalid(FieldError{fmt.Sprintf("codes[%d]", i), "must be 1 to 128 characters besides dashes and spaces"})
		}
		if imported && CodeEntropyBits(NormalizeLicenseCode(code)) < MinImportedCodeBits {
			return nil, Invalid(FieldError{fmt.Sprintf("codes[%d]", i),
				"is too easy to guess: a code needs about 80 bits of randomness, for example 16 random letters and digits or 25 random digits"})
		}
		if seen[id] {
			return nil, Invalid(FieldError{fmt.Sprintf("codes[%d]", i), "is listed twice"})
		}
		seen[id] = true
		batch[i] = License{ID: id, AppID: appID, CodeHint: codeHint(code), Grant: req.Grant, Note: req.Note, CreatedAt: now}
		out[i] = IssuedLicense{License: batch[i], Code: code}
	}
	err := s.commit(ctx, func(ctx context.Context) error {
		err := s.store.InsertLicenses(ctx, batch)
		if errors.Is(err, ErrDuplicate) {
			return Refusal(CodeConflict, "A license with one of these codes exists already.")
		}
		return wrapStore(err, "creating licenses")
	}, Event{Kind: EventLicensesCreated, AppID: appID, LicenseID: batch[0].ID, Count: len(batch), After: licensesOf(batch, imported)})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// LicenseStatus is a license with whether and by whom it was used.
type LicenseStatus struct {
	License
	Use *LicenseUse
}

// ListLicenses lists an application's licenses in ID order after the
// cursor (a license ID), keeping those the filter selects.
func (s *Service) ListLicenses(ctx context.Context, appID string, f LicenseFilter, after string, limit int) (Page[LicenseStatus], error) {
	if _, err := s.App(ctx, appID); err != nil {
		return Page[LicenseStatus]{}, err
	}
	limit = clampPage(limit)
	batch, err := s.store.Licenses(ctx, appID, f, after, limit)
	if err != nil {
		return Page[LicenseStatus]{}, wrapStore(err, "listing licenses")
	}
	page := Page[LicenseStatus]{Items: make([]LicenseStatus, 0, len(batch))}
	for _, l := range batch {
		st, err := s.licenseStatus(ctx, l)
		if err != nil {
			return Page[LicenseStatus]{}, err
		}
		// The used mark of a store without transactions may lag its
		// claim by a crash; the claim decides.
		if f.Used != nil && *f.Used != (st.Use != nil) {
			continue
		}
		page.Items = append(page.Items, *st)
	}
	if len(batch) == limit {
		page.Next = batch[len(batch)-1].ID
	}
	return page, nil
}

// Licenses is ListLicenses with the used filter as a pointer, returning the
// items and the next cursor.
func (s *Service) Licenses(ctx context.Context, appID string, used *bool, after string, limit int) ([]LicenseStatus, string, error) {
	p, err := s.ListLicenses(ctx, appID, LicenseFilter{Used: used}, after, limit)
	return p.Items, p.Next, err
}

func (s *Service) licenseStatus(ctx context.Context, l License) (*LicenseStatus, error) {
	use, _, err := s.store.LicenseUseByID(ctx, l.ID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, wrapStore(err, "reading license use")
	}
	return &LicenseStatus{License: l, Use: use}, nil
}

// LicenseOf returns an application's license by ID.
func (s *Service) LicenseOf(ctx context.Context, appID, licenseID string) (*LicenseStatus, error) {
	l, err := s.store.LicenseByID(ctx, licenseID)
	if errors.Is(err, ErrNotFound) || (err == nil && l.AppID != appID) {
		return nil, notFound("license")
	}
	if err != nil {
		return nil, wrapStore(err, "reading license")
	}
	return s.licenseStatus(ctx, *l)
}

// LicenseByCode returns an application's license by its code.
func (s *Service) LicenseByCode(ctx context.Context, appID, code string) (*LicenseStatus, error) {
	id := s.licenseID(appID, code)
	if id == "" {
		return nil, notFound("license")
	}
	return s.LicenseOf(ctx, appID, id)
}

// DeleteLicense deletes an unused license; a used one is a conflict.
func (s *Service) DeleteLicense(ctx context.Context, appID, licenseID string) error {
	st, err := s.LicenseOf(ctx, appID, licenseID)
	if err != nil {
		return err
	}
	if st.Use != nil {
		return Refusal(CodeConflict, "The license has been used and cannot be deleted.")
	}
	return s.commit(ctx, func(ctx context.Context) error {
		return wrapStore(s.store.DeleteLicense(ctx, licenseID), "deleting license")
	},
		Event{Kind: EventLicenseDeleted, AppID: appID, LicenseID: licenseID})
}
