package mongostore

import (
	"context"
	"encoding/json"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

// auditDoc is one audit entry. Its _id is "<app id>/<entry id>", so an
// application's log, and a time range of it, is an _id range; the entry
// ID alone is kept for the cursor.
type auditDoc struct {
	ID            string    `bson:"_id"`
	EntryID       string    `bson:"entry_id"`
	AppID         string    `bson:"app_id"`
	At            time.Time `bson:"at"`
	PrincipalKind string    `bson:"principal_kind"`
	PrincipalName string    `bson:"principal_name"`
	Action        string    `bson:"action"`
	UserID        string    `bson:"user_id"`
	Target        string    `bson:"target"`
	Before        string    `bson:"before,omitempty"`
	After         string    `bson:"after,omitempty"`
}

func auditDocID(appID, entryID string) string { return appID + "/" + entryID }

// AppendAudit implements access.AuditStore: one insert on a unique _id.
func (s *Store) AppendAudit(ctx context.Context, e *access.AuditEntry) error {
	return s.insert(ctx, collAudit, auditDoc{ID: auditDocID(e.AppID, e.ID), EntryID: e.ID, AppID: e.AppID, At: e.At,
		PrincipalKind: e.Principal.Kind, PrincipalName: e.Principal.Name, Action: e.Action, UserID: e.UserID,
		Target: e.Target, Before: string(e.Before), After: string(e.After)})
}

// AuditLog implements access.AuditStore: an _id range, with the indexes
// {app_id, action, _id} and {app_id, user_id, _id} for the filters.
func (s *Store) AuditLog(ctx context.Context, appID string, f access.AuditFilter, after string, limit int) ([]access.AuditEntry, error) {
	lo, hi := auditDocID(appID, ""), auditDocID(appID, "~") // "~" sorts after every ID
	if !f.Since.IsZero() {
		lo = auditDocID(appID, access.AuditIDAt(f.Since))
	}
	if after != "" && auditDocID(appID, after) >= lo {
		lo = auditDocID(appID, after) + "\x00" // the least _id after the cursor's
	}
	if !f.Until.IsZero() {
		hi = auditDocID(appID, access.AuditIDAt(f.Until))
	}
	filter := bson.D{{Key: "app_id", Value: appID}}
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(limit))
	// A filter names its index: with an _id range, a planner could
	// otherwise walk the range on _id for the filter.
	switch {
	case f.Action != "":
		opts.SetHint(bson.D{{Key: "app_id", Value: 1}, {Key: "action", Value: 1}, {Key: "_id", Value: 1}})
	case f.UserID != "":
		opts.SetHint(bson.D{{Key: "app_id", Value: 1}, {Key: "user_id", Value: 1}, {Key: "_id", Value: 1}})
	}
	if f.Action != "" {
		filter = append(filter, bson.E{Key: "action", Value: f.Action})
	}
	if f.UserID != "" {
		filter = append(filter, bson.E{Key: "user_id", Value: f.UserID})
	}
	filter = append(filter, bson.E{Key: "_id", Value: bson.D{{Key: "$gte", Value: lo}, {Key: "$lt", Value: hi}}})
	var docs []auditDoc
	if err := findAll(ctx, s.c(collAudit), filter, opts, &docs); err != nil {
		return nil, err
	}
	out := make([]access.AuditEntry, len(docs))
	for i, d := range docs {
		out[i] = access.AuditEntry{ID: d.EntryID, At: d.At.UTC(), AppID: d.AppID,
			Principal: access.Principal{Kind: d.PrincipalKind, Name: d.PrincipalName},
			Action:    d.Action, UserID: d.UserID, Target: d.Target}
		if d.Before != "" {
			out[i].Before = json.RawMessage(d.Before)
		}
		if d.After != "" {
			out[i].After = json.RawMessage(d.After)
		}
	}
	return out, nil
}

// DeleteAuditBefore implements access.AuditStore, on the {at} index.
func (s *Store) DeleteAuditBefore(ctx context.Context, t time.Time) (int64, error) {
	res, err := s.c(collAudit).DeleteMany(ctx, bson.D{{Key: "at", Value: bson.D{{Key: "$lt", Value: t}}}})
	if err != nil {
		return 0, mapErr(err)
	}
	return res.DeletedCount, nil
}

var _ access.AuditStore = (*Store)(nil)
