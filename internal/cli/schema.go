package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agent-eval/agent-eval/internal/config"
)

func newSchemaCmd(e env) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of eval.yaml",
		Long: `Print the JSON Schema (draft 2020-12) of eval.yaml. It is generated from the
same types the loader reads, so an editor using it (the YAML language server,
for one) completes and checks exactly what agent-eval accepts. Point the editor
at it with a first line such as:

  # yaml-language-server: $schema=./eval.schema.json

The schema checks structure (keys, types, allowed values, path shapes and
mutually exclusive keys); 'agent-eval validate' also checks cross-references
such as judge names and step ids.`,
		RunE: func(*cobra.Command, []string) error {
			b, err := config.JSONSchema()
			if err != nil {
				return err
			}
			b = append(b, '\n')
			if output == "" || output == "-" {
				_, err = e.Out.Write(b)
				return err
			}
			if err := os.WriteFile(output, b, 0o644); err != nil {
				return fmt.Errorf("write schema: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the schema to `FILE` instead of stdout")
	return cmd
}
