/*
 * commands.h - one entry point per subcommand, git-style (src/cli/cmd_*.c).
 * Each returns the process exit status.
 */
#ifndef WITCH_COMMANDS_H
#define WITCH_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_spy(int argc, char **argv);
int cmd_causal(int argc, char **argv);
int cmd_cpi(int argc, char **argv);
int cmd_loops(int argc, char **argv);

#endif
