package caddymodule

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/adminclient"
	"github.com/appaccess/appaccess/accessapi/wire"
)

var fileColumns = []column[wire.FileInfo]{
	{"id", func(f wire.FileInfo) string { return f.ID }},
	{"name", func(f wire.FileInfo) string { return f.Name }},
	{"mime_type", func(f wire.FileInfo) string { return f.MimeType }},
	{"is_encrypted", func(f wire.FileInfo) string { return yesNo(f.IsEncrypted) }},
	{"size", func(f wire.FileInfo) string { return number(f.Size) }},
	{"sha256", func(f wire.FileInfo) string { return f.SHA256 }},
	{"created_at", func(f wire.FileInfo) string { return f.CreatedAt }},
}

func (c *cli) filesCommand() *cobra.Command {
	var (
		app, name, mimeType string
		encrypted           bool
	)
	files := &cobra.Command{Use: "files", Short: "Application files"}
	upload := showCommand(c, appScoped(markUnbounded(&cobra.Command{Use: "upload PATH", Short: "Upload a file (streamed)", Args: cobra.ExactArgs(1)}), &app),
		fileColumns, func(cmd *cobra.Command, cl *adminclient.Client, args []string) (*wire.FileInfo, error) {
			f, err := os.Open(args[0])
			if err != nil {
				return nil, fmt.Errorf("opening the file to upload: %w", err)
			}
			defer f.Close()
			up := adminclient.Upload{Name: name, MimeType: mimeType, Encrypted: encrypted}
			if up.Name == "" {
				up.Name = filepath.Base(args[0])
			}
			src := &sourceReader{r: f}
			info, err := cl.UploadFile(cmd.Context(), app, up, src)
			if src.err != nil {
				// The upload failed on this side: the server is not to
				// blame, though the client reports a broken request.
				return nil, fmt.Errorf("reading the file to upload: %w", src.err)
			}
			return info, err
		})
	upload.Flags().StringVar(&name, "name", "", "the file's name (default: the path's base name)")
	upload.Flags().StringVar(&mimeType, "mime-type", "", "the file's media type (default: detected from the name, else the contents)")
	upload.Flags().BoolVar(&encrypted, "encrypted", false, "store the file encrypted")
	files.AddCommand(upload,
		listCommand(c, appScoped(&cobra.Command{Use: "list", Short: "List files", Args: cobra.NoArgs}, &app),
			fileColumns, func(cmd *cobra.Command, cl *adminclient.Client, _ []string) (*wire.Page[wire.FileInfo], error) {
				return cl.Files(cmd.Context(), app)
			}),
		doneCommand(c, appScoped(&cobra.Command{Use: "delete FILE_ID", Short: "Delete a file", Args: cobra.ExactArgs(1)}, &app),
			func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
				return cl.DeleteFile(cmd.Context(), app, args[0])
			}),
	)
	return files
}
