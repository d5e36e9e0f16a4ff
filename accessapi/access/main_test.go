package access_test

import (
	"os"
	"testing"

	"github.com/appaccess/appaccess/accessapi/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }
