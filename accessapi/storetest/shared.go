package storetest

import "go.mongodb.org/mongo-driver/v2/mongo"

// SharedDatabase returns the database name on the test server, starting
// the embedded one if needed, for fixtures that outlive one test: a
// TestMain's or an example's server. It is not dropped; Main stops the
// embedded server and removes its folder.
func SharedDatabase(name string) (*mongo.Database, error) {
	start()
	if shared.err != nil {
		return nil, shared.err
	}
	return shared.client.Database(name), nil
}
