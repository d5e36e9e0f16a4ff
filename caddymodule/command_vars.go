package caddymodule

import (
	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/adminclient"
	"github.com/appaccess/appaccess/accessapi/wire"
)

var variableColumns = []column[wire.Variable]{
	{"name", func(v wire.Variable) string { return v.Name }},
	{"value", func(v wire.Variable) string { return v.Value }},
}

func (c *cli) varsCommand() *cobra.Command {
	var app string
	vars := &cobra.Command{Use: "vars", Short: "Application variables"}
	vars.AddCommand(
		showCommand(c, appScoped(&cobra.Command{Use: "set NAME VALUE", Short: "Set a variable", Args: cobra.ExactArgs(2)}, &app),
			variableColumns, func(cmd *cobra.Command, cl *adminclient.Client, args []string) (*wire.Variable, error) {
				return cl.SetVariable(cmd.Context(), app, args[0], args[1])
			}),
		listCommand(c, appScoped(&cobra.Command{Use: "list", Short: "List variables", Args: cobra.NoArgs}, &app),
			variableColumns, func(cmd *cobra.Command, cl *adminclient.Client, _ []string) (*wire.Page[wire.Variable], error) {
				return cl.Variables(cmd.Context(), app)
			}),
		doneCommand(c, appScoped(&cobra.Command{Use: "delete NAME", Short: "Delete a variable", Args: cobra.ExactArgs(1)}, &app),
			func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
				return cl.DeleteVariable(cmd.Context(), app, args[0])
			}),
	)
	return vars
}
