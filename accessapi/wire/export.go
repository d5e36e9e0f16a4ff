package wire

// ImportSummary is the answer of POST /app_access/import: the records
// imported, by type.
type ImportSummary struct {
	Records map[string]int64 `json:"records"`
}

// BackupRequest is the body of POST /app_access/backup.
type BackupRequest struct {
	// Path is the new file on the server's machine the copy is written to
	// (mode 0600); an existing file is never overwritten.
	Path string `json:"path"`
}

// Backup is the answer of POST /app_access/backup.
type Backup struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

// ExportMediaType is the media type of an export: JSON Lines.
const ExportMediaType = "application/jsonl"
