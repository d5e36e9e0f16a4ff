package adminapi_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/adminapi"
)

// TestAdminEndpointCaller_IsNamedByItsClientCertificateOverMutualTLS: on
// Caddy's remote admin the audit log names the operator's certificate
// (its common name and fingerprint), on the local endpoint the address.
func TestAdminEndpointCaller_IsNamedByItsClientCertificateOverMutualTLS(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "operator-ann"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/app_access/apps", nil)
	r.RemoteAddr = "203.0.113.9:50000"
	if got := adminapi.AdminEndpointCaller(r); got != "203.0.113.9:50000" {
		t.Fatalf("without TLS the caller is %q, want the address", got)
	}
	r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}
	got := adminapi.AdminEndpointCaller(r)
	if !strings.HasPrefix(got, "cert operator-ann sha256:") || !strings.HasSuffix(got, " from 203.0.113.9:50000") {
		t.Fatalf("with a client certificate the caller is %q", got)
	}
}
