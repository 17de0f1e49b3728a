package cli

import (
	"github.com/spf13/cobra"
)

type matrixStatusOptions struct {
	config string
}

func newMatrixStatusCmd(e env) *cobra.Command {
	opts := matrixStatusOptions{}
	cmd := &cobra.Command{
		Use:   "status [MATRIX_DIR]",
		Short: "List a matrix's cells, their levels and how far each has got",
		Long: `List the cells of the matrix in MATRIX_DIR (default: the latest matrix of the
eval -c names) on stdout: each cell's levels, replication, state (pending,
running, unfinished, finished, scored) and run directory.

Exit status: 0, or 2 when there is no such matrix.`,
		Args: maxArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return runMatrixStatus(e, opts, optionalArg(args))
		},
	}
	runConfigFlag(cmd.Flags(), &opts.config, "the eval config `FILE` whose latest matrix is listed when no MATRIX_DIR is given")
	return cmd
}

func runMatrixStatus(e env, opts matrixStatusOptions, dirArg string) error {
	d, ix, err := matrixArg(e, opts.config, dirArg)
	if err != nil {
		return err
	}
	return printCells(e.Out, d, ix)
}
