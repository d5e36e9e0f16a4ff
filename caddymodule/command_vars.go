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
	set := appScoped(&cobra.Command{Use: "set NAME VALUE", Short: "Set a variable", Args: cobra.ExactArgs(2),
		RunE: c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
			v, err := cl.SetVariable(cmd.Context(), app, args[0], args[1])
			if err != nil {
				return err
			}
			return printObject(c.printer(), *v, variableColumns)
		})}, &app)
	list := appScoped(&cobra.Command{Use: "list", Short: "List variables", Args: cobra.NoArgs,
		RunE: c.run(func(cmd *cobra.Command, cl *adminclient.Client, _ []string) error {
			page, err := cl.Variables(cmd.Context(), app)
			if err != nil {
				return err
			}
			return printPage(c.printer(), page, variableColumns)
		})}, &app)
	del := appScoped(&cobra.Command{Use: "delete NAME", Short: "Delete a variable", Args: cobra.ExactArgs(1),
		RunE: c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
			if err := cl.DeleteVariable(cmd.Context(), app, args[0]); err != nil {
				return err
			}
			return printDone(c.printer())
		})}, &app)
	vars.AddCommand(set, list, del)
	return vars
}
