package mongostore_test

import (
	"os"
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/storetest/conformance"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

func TestConformance(t *testing.T) {
	conformance.Run(t, func(t testing.TB) access.Store { return storetest.Mongo(t) })
}
