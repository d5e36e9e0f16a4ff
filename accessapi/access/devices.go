package access

import (
	"context"
	"errors"
)

// checkDevice accepts hardwareID if it is registered for the user, and
// registers it in the first free slot while the user has fewer devices than
// the application allows. Slots are unique keys, so concurrent registrations
// can never exceed the limit.
func (s *Service) checkDevice(ctx context.Context, app *App, userID, hardwareID string) error {
	if !app.DeviceAuth {
		return nil
	}
	if hardwareID == "" {
		return errDeviceRequired
	}
	if !validHardwareID(hardwareID) {
		return errDeviceMismatch
	}
	key := userID + "\x00" + hardwareID
	if _, hit := s.devices.get(key); hit {
		return nil
	}
	stamp := s.devices.stamp()
	ok, err := s.registerDevice(ctx, app, userID, hardwareID)
	if err != nil {
		return err
	}
	if !ok {
		return errDeviceMismatch
	}
	s.devices.setStamped(key, userID, stamp)
	return nil
}

// registerDevice reports whether hardwareID holds, or could take, one of the
// user's slots.
func (s *Service) registerDevice(ctx context.Context, app *App, userID, hardwareID string) (bool, error) {
	limit := max(app.MaxDevices, 1)
	for slot := 0; slot < limit; slot++ {
		d, err := s.store.DeviceInSlot(ctx, userID, slot)
		if err == nil {
			if d.HardwareID == hardwareID {
				return true, nil
			}
			continue
		}
		if !errors.Is(err, ErrNotFound) {
			return false, wrapStore(err, "reading device")
		}
		err = s.store.InsertDevice(ctx, &Device{UserID: userID, AppID: app.ID, Slot: slot, HardwareID: hardwareID, RegisteredAt: s.Now()})
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, ErrDuplicate):
			// Another request took this slot first: it may have been for
			// the same device; if not, the next slot is tried.
			d, err := s.store.DeviceInSlot(ctx, userID, slot)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return false, wrapStore(err, "reading device")
			}
			if err == nil && d.HardwareID == hardwareID {
				return true, nil
			}
		default:
			return false, wrapStore(err, "registering device")
		}
	}
	return false, nil
}
