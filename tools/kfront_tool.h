/* kfront_tool.h — the subcommands of the kfront driver (tools/kfront.c dispatches to them).
 *
 * Each takes the arguments after `kfront`: argv[0] is the subcommand's name ("run"), then its options.
 * Each prints its diagnostics to stderr and returns the process exit status: 0 success, 1 failure
 * (bad input, compile or launch error, IndexError), 2 usage error. Built only on the public API. */
#ifndef KFRONT_TOOL_H
#define KFRONT_TOOL_H

/* kfront run FILE.py -k NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] [--shared BYTES] [--sim] [--sim-max-steps N]
 *            [--sim-max-seconds S] [--no-cache] [--bounds-check=on|off] [-o DIR] [-v] ARG... */
int kfront_run_main(int argc, char **argv);

/* kfront --version, kfront -s (tools/kfront_system.c). */
int kfront_version_main(void);
int kfront_system_main(void);

#endif
