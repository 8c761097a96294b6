/* xl profile's subcommands, each in its own file (cmd_NAME.c), dispatched
 * when the first argument names one. argv[0] is the subcommand's name.
 * Exit status: 0, 1 (failed), 2 (bad usage), after one error line. */
#ifndef XLP_SUBCOMMANDS_H
#define XLP_SUBCOMMANDS_H

int xlp_cmd_profile(int argc, char **argv);  /* a domain, live */
int xlp_cmd_report(int argc, char **argv);   /* stored profiles again */
int xlp_cmd_diff(int argc, char **argv);     /* two stored profiles */
int xlp_cmd_core(int argc, char **argv);     /* stacks of a Xen core file */
int xlp_cmd_top(int argc, char **argv);      /* a live view */

#endif
