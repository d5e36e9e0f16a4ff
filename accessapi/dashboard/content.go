package dashboard

import (
	"net/http"
	"net/url"

	"github.com/appaccess/appaccess/accessapi/access"
)

// contentPage is the data of the variables and files page.
type contentPage struct {
	Variables []access.Variable
	Files     []access.File
}

// content serves GET /apps/{app}/content.
func (s *Server) content(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	app, err := si.svc.App(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	vs, err := si.svc.Variables(r.Context(), app.ID)
	if err != nil {
		return err
	}
	fs, err := si.svc.Files(r.Context(), app.ID)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "content", page{Title: "Variables and files", App: app, Data: contentPage{Variables: vs, Files: fs}})
	return nil
}

// setVariable serves POST /apps/{app}/variables.
func (s *Server) setVariable(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	if _, err := si.svc.SetVariable(r.Context(), r.PathValue("app"), r.PostFormValue("name"), r.PostFormValue("value")); err != nil {
		return err
	}
	return s.redirect(w, r, "/apps/"+r.PathValue("app")+"/content")
}

// deleteVariable serves POST /apps/{app}/variables/delete: the name is a
// form field, never a part of the form's URL (a name is chosen by whoever
// may set variables, and a path made of it could point the form at
// another action).
func (s *Server) deleteVariable(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	if err := si.svc.DeleteVariable(r.Context(), r.PathValue("app"), r.PostFormValue("name")); err != nil {
		return err
	}
	return s.redirect(w, r, "/apps/"+r.PathValue("app")+"/content")
}

// uploadFile serves POST /apps/{app}/files (multipart/form-data).
func (s *Server) uploadFile(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	f, hdr, err := r.FormFile("file")
	if err != nil {
		return access.Invalid(access.FieldError{Field: "file", Message: "choose a file to upload"})
	}
	defer f.Close()
	mime := hdr.Header.Get("Content-Type")
	if mime == "" {
		mime = "application/octet-stream"
	}
	up := access.FileUpload{Name: hdr.Filename, MimeType: mime, Encrypted: r.PostFormValue("encrypted") == "on"}
	if _, err := si.svc.UploadFile(r.Context(), r.PathValue("app"), up, f); err != nil {
		return err
	}
	return s.redirect(w, r, "/apps/"+url.PathEscape(r.PathValue("app"))+"/content")
}

// deleteFile serves POST /apps/{app}/files/{file}/delete.
func (s *Server) deleteFile(w http.ResponseWriter, r *http.Request, si *signedIn) error {
	if err := si.svc.DeleteFile(r.Context(), r.PathValue("app"), r.PathValue("file")); err != nil {
		return err
	}
	return s.redirect(w, r, "/apps/"+r.PathValue("app")+"/content")
}
