package sqlitestore_test

import (
	"testing"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/storetest/conformance"
)

func TestConformance(t *testing.T) {
	conformance.Run(t, func(t testing.TB) access.Store { return storetest.SQLite(t) })
}
