package client_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/client"
)

// A user signs up, activates a license, logs in, reads the application
// context and logs out.
func Example() {
	appID, key, secret := exampleApp(access.AppSettings{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	c, err := client.New(server.URL, key, secret)
	if err != nil {
		panic(err)
	}
	user, err := c.SignUp(ctx, "alice", "correct horse battery")
	if err != nil {
		panic(err)
	}
	fmt.Println("signed up:", user.Username, "active:", user.Membership.IsActive)

	if _, err := c.ActivateLicense(ctx, licenseCode(appID), "alice", "correct horse battery"); err != nil {
		panic(err)
	}
	session, err := c.Login(ctx, "alice", "correct horse battery")
	if err != nil {
		panic(err)
	}
	ac, err := c.AppContext(ctx, client.Token(session.Token))
	if err != nil {
		panic(err)
	}
	fmt.Println("application:", ac.Application.Name, "user:", ac.User.Username, "active:", ac.User.Membership.IsActive)

	if err := c.Logout(ctx, session.Token); err != nil {
		panic(err)
	}
	_, err = c.AppContext(ctx, client.Token(session.Token))
	fmt.Println("after logout:", errors.Is(err, client.ErrInvalidCredentials))
	// Output:
	// signed up: alice active: false
	// application: test app user: alice active: true
	// after logout: true
}

// A user who bought a license code signs up with it and logs in with it.
func ExampleClient_SignUpWithLicenseCode() {
	appID, key, secret := exampleApp(access.AppSettings{})
	ctx := context.Background()
	c, err := client.New(server.URL, key, secret)
	if err != nil {
		panic(err)
	}
	code := licenseCode(appID)
	user, err := c.SignUpWithLicenseCode(ctx, code)
	if err != nil {
		panic(err)
	}
	fmt.Println("active:", user.Membership.IsActive)
	if _, err := c.LoginWithLicenseCode(ctx, code); err != nil {
		panic(err)
	}
	_, err = c.SignUpWithLicenseCode(ctx, code)
	fmt.Println("second sign-up:", errors.Is(err, client.ErrLicenseUsed))
	// Output:
	// active: true
	// second sign-up: true
}

// Refusals wrap a sentinel error per problem code; *Error has the details.
func ExampleError() {
	_, key, secret := exampleApp(access.AppSettings{})
	c, err := client.New(server.URL, key, secret)
	if err != nil {
		panic(err)
	}
	_, err = c.Login(context.Background(), "nobody", "wrong password")
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Code, errors.Is(err, client.ErrInvalidCredentials))
	}
	_, err = c.SignUp(context.Background(), "", "")
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Fields[0].Field, e.Fields[0].Message)
	}
	// Output:
	// 401 invalid_credentials true
	// validation_failed username is required
}

// A file listed in the application context is downloaded, resumed if it
// was cut, and checked against its SHA-256.
func ExampleClient_Download() {
	appID, key, secret := exampleApp(access.AppSettings{})
	if _, err := server.UploadFile(context.Background(), appID, "notes.txt", []byte("hello, world\n")); err != nil {
		panic(err)
	}
	ctx := context.Background()
	c, err := client.New(server.URL, key, secret)
	if err != nil {
		panic(err)
	}
	code := licenseCode(appID)
	if _, err := c.SignUpWithLicenseCode(ctx, code); err != nil {
		panic(err)
	}
	auth := client.LicenseCode(code)
	ac, err := c.AppContext(ctx, auth)
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "example-download-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	file := ac.Application.Files[0]
	size, err := c.Download(ctx, auth, file.ID, filepath.Join(dir, file.Name))
	if err != nil {
		panic(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, file.Name))
	fmt.Printf("%s: %d bytes: %q\n", file.Name, size, b)
	// Output:
	// notes.txt: 13 bytes: "hello, world\n"
}

// HardwareID derives this machine's id for an application with device
// authentication.
func ExampleHardwareID() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	id, err := client.HardwareID(ctx, "my-game")
	if err != nil {
		fmt.Println("no machine id:", err)
		return
	}
	c, err := client.New("https://api.example.com", "KEY", "SECRET", client.WithHardwareID(id))
	if err != nil {
		panic(err)
	}
	_ = c // sign-ups, logins and header auth now send the device
}
