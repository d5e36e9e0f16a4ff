package adminapi

import (
	"bufio"
	"errors"
	"net/http"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// listVariables serves GET /apps/{app}/variables.
func listVariables(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	vs, err := svc.Variables(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	return writePage(w, vs, "", clientapi.VariableView)
}

// setVariable serves PUT /apps/{app}/variables/{name}.
func setVariable(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b wire.VariableValue
	if err := httpx.DecodeStrictJSON(w, r, &b, maxBodyBytes); err != nil {
		return err
	}
	if b.Value == nil { // the service cannot tell a missing value from ""
		return access.Invalid(access.FieldError{Field: "value", Message: "is required"})
	}
	v, err := svc.SetVariable(r.Context(), r.PathValue("app"), r.PathValue("name"), *b.Value)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, clientapi.VariableView(v))
	return nil
}

// deleteVariable serves DELETE /apps/{app}/variables/{name}.
func deleteVariable(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	if err := svc.DeleteVariable(r.Context(), r.PathValue("app"), r.PathValue("name")); err != nil {
		return err
	}
	return noContent(w)
}

// MaxFileBytes bounds an uploaded file.
const MaxFileBytes = 1 << 30

// uploadFile serves POST /apps/{app}/files?name=&mime_type=&encrypted=:
// the body is the file's bytes, streamed to the store.
func uploadFile(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	q := r.URL.Query()
	up := access.FileUpload{Name: q.Get("name")}
	switch q.Get("encrypted") {
	case "", "false":
	case "true":
		up.Encrypted = true
	default:
		return access.Invalid(access.FieldError{Field: "encrypted", Message: "must be true or false"})
	}
	body := bufio.NewReaderSize(http.MaxBytesReader(w, r.Body, MaxFileBytes), sniffLen)
	up.MimeType = mediaType(q.Get("mime_type"), r.Header.Get("Content-Type"), up.Name, body)
	f, err := svc.UploadFile(r.Context(), r.PathValue("app"), up, body)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return access.Refusal(access.CodePayloadTooLarge, "The file is larger than "+httpx.SizeText(MaxFileBytes)+".")
	}
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, fileInfoView(f))
	return nil
}

// listFiles serves GET /apps/{app}/files.
func listFiles(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	fs, err := svc.Files(r.Context(), r.PathValue("app"))
	if err != nil {
		return err
	}
	return writePage(w, fs, "", fileInfoView)
}

// deleteFile serves DELETE /apps/{app}/files/{file}.
func deleteFile(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	if err := svc.DeleteFile(r.Context(), r.PathValue("app"), r.PathValue("file")); err != nil {
		return err
	}
	return noContent(w)
}
