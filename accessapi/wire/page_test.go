package wire_test

import (
	"encoding/json"
	"testing"

	"github.com/appaccess/appaccess/accessapi/wire"
)

func TestPage_IsTheListUnderItsNameAndNext(t *testing.T) {
	t.Parallel()
	next := "cursor-1"
	for _, tt := range []struct {
		name string
		page any
		want string
	}{
		{"users with a next page", wire.Page[wire.UserSummary]{Items: []wire.UserSummary{{ID: "u1", Username: "ann", CreatedAt: "t"}}, Next: &next},
			`{"users":[{"id":"u1","username":"ann","created_at":"t"}],"next":"cursor-1"}`},
		{"no items", wire.Page[wire.Variable]{}, `{"variables":[],"next":null}`},
	} {
		got, err := json.Marshal(tt.page)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: %s (%v), want %s", tt.name, got, err, tt.want)
		}
	}
	var back wire.Page[wire.UserSummary]
	if err := json.Unmarshal([]byte(`{"users":[{"id":"u1"}],"next":"c"}`), &back); err != nil || len(back.Items) != 1 || *back.Next != "c" {
		t.Fatalf("decoded %+v (%v)", back, err)
	}
	if err := json.Unmarshal([]byte(`{"apps":[]}`), &back); err == nil {
		t.Fatal("a page of another list decoded as users")
	}
}
