package access

import "context"

// AppContent is what an application hands to its users: its variables and
// the list of its files.
type AppContent struct {
	Variables []Variable
	Files     []File
}

// Content returns the application's variables and files, cached for at most
// the staleness bound.
func (s *Service) Content(ctx context.Context, app *App) (*AppContent, error) {
	if c, ok := s.content.get(app.ID); ok {
		return c, nil
	}
	stamp := s.content.stamp()
	vars, err := s.store.Variables(ctx, app.ID)
	if err != nil {
		return nil, wrapStore(err, "reading variables")
	}
	files, err := s.store.Files(ctx, app.ID)
	if err != nil {
		return nil, wrapStore(err, "reading files")
	}
	c := &AppContent{Variables: vars, Files: files}
	s.content.setStamped(app.ID, c, stamp)
	return c, nil
}
