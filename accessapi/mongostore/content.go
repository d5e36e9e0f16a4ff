package mongostore

import (
	"context"
	"fmt"
	"io"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/appaccess/appaccess/accessapi/access"
)

type variableDoc struct {
	ID    string `bson:"_id"`
	AppID string `bson:"app_id"`
	Name  string `bson:"name"`
	Value string `bson:"value"`
}

func variableID(appID, name string) string { return appID + "/" + name }

// PutVariable implements access.ContentStore. Only administrators write
// variables; the last write wins.
func (s *Store) PutVariable(ctx context.Context, v *access.Variable) error {
	_, err := s.c(collVariables).ReplaceOne(ctx, bsonEq("_id", variableID(v.AppID, v.Name)),
		variableDoc{ID: variableID(v.AppID, v.Name), AppID: v.AppID, Name: v.Name, Value: v.Value}, options.Replace().SetUpsert(true))
	return mapErr(err)
}

// DeleteVariable implements access.ContentStore.
func (s *Store) DeleteVariable(ctx context.Context, appID, name string) error {
	return s.deleteExisting(ctx, collVariables, bsonEq("_id", variableID(appID, name)))
}

// Variables implements access.ContentStore.
func (s *Store) Variables(ctx context.Context, appID string) ([]access.Variable, error) {
	var docs []variableDoc
	if err := findAll(ctx, s.c(collVariables), bsonEq("app_id", appID), options.Find().SetSort(bsonEq("name", 1)), &docs); err != nil {
		return nil, err
	}
	out := make([]access.Variable, len(docs))
	for i, d := range docs {
		out[i] = access.Variable{AppID: d.AppID, Name: d.Name, Value: d.Value}
	}
	return out, nil
}

type fileDoc struct {
	ID          string    `bson:"_id"`
	AppID       string    `bson:"app_id"`
	Name        string    `bson:"name"`
	MimeType    string    `bson:"mime_type"`
	IsEncrypted bool      `bson:"is_encrypted"`
	Size        int64     `bson:"size"`
	SHA256      string    `bson:"sha256"`
	KeyID       string    `bson:"key_id,omitempty"`
	CreatedAt   time.Time `bson:"created_at"`
}

func (d *fileDoc) file() access.File {
	return access.File{ID: d.ID, AppID: d.AppID, Name: d.Name, MimeType: d.MimeType, IsEncrypted: d.IsEncrypted,
		Size: d.Size, SHA256: d.SHA256, CreatedAt: d.CreatedAt.UTC(), KeyID: d.KeyID}
}

func (s *Store) bucket() *mongo.GridFSBucket {
	return s.db.GridFSBucket(options.GridFSBucket().SetName(bucketFiles))
}

// PutFileContents implements access.ContentStore: the contents go to
// GridFS under the file's ID; a failure removes what was written.
func (s *Store) PutFileContents(ctx context.Context, fileID string, r io.Reader) error {
	if err := s.bucket().UploadFromStreamWithID(ctx, fileID, fileID, r); err != nil {
		_ = s.bucket().Delete(context.WithoutCancel(ctx), fileID)
		return fmt.Errorf("storing file contents: %w", mapErr(err))
	}
	return nil
}

// InsertFile implements access.ContentStore: the metadata that makes a
// stored file visible.
func (s *Store) InsertFile(ctx context.Context, f *access.File) error {
	return s.insert(ctx, collFiles, fileDoc{ID: f.ID, AppID: f.AppID, Name: f.Name, MimeType: f.MimeType,
		IsEncrypted: f.IsEncrypted, Size: f.Size, SHA256: f.SHA256, CreatedAt: f.CreatedAt, KeyID: f.KeyID})
}

// Files implements access.ContentStore.
func (s *Store) Files(ctx context.Context, appID string) ([]access.File, error) {
	var docs []fileDoc
	if err := findAll(ctx, s.c(collFiles), bsonEq("app_id", appID), options.Find().SetSort(bsonEq("created_at", 1)), &docs); err != nil {
		return nil, err
	}
	out := make([]access.File, len(docs))
	for i := range docs {
		out[i] = docs[i].file()
	}
	return out, nil
}

// FileByID implements access.ContentStore.
func (s *Store) FileByID(ctx context.Context, fileID string) (*access.File, error) {
	var d fileDoc
	if err := s.byID(ctx, collFiles, fileID, &d); err != nil {
		return nil, err
	}
	f := d.file()
	return &f, nil
}

// OpenFile implements access.ContentStore.
func (s *Store) OpenFile(ctx context.Context, fileID string, offset int64) (io.ReadCloser, error) {
	ds, err := s.bucket().OpenDownloadStream(ctx, fileID)
	if err != nil {
		if err == mongo.ErrFileNotFound {
			return nil, access.ErrNotFound
		}
		return nil, mapErr(err)
	}
	if offset > 0 {
		if _, err := ds.Skip(offset); err != nil {
			_ = ds.Close()
			return nil, fmt.Errorf("seeking file: %w", err)
		}
	}
	return ds, nil
}

// DeleteFile implements access.ContentStore: the metadata goes first, so a
// file is never listed without its contents.
func (s *Store) DeleteFile(ctx context.Context, fileID string) error {
	res, err := s.c(collFiles).DeleteOne(ctx, bsonEq("_id", fileID))
	if err != nil {
		return mapErr(err)
	}
	if err := s.bucket().Delete(ctx, fileID); err != nil && err != mongo.ErrFileNotFound {
		return mapErr(err)
	}
	return foundIf(res.DeletedCount)
}
