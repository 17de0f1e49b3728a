package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/version"
)

func newVersionCmd(e env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of agent-eval and the Go version it was built with",
		RunE: func(*cobra.Command, []string) error {
			info := version.Get()
			if asJSON {
				enc := json.NewEncoder(e.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(info)
			}
			_, err := fmt.Fprintln(e.Out, info.String())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
