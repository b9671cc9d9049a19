/* SPDX-License-Identifier: GPL-2.0 */
/* fcapsctl commands that load, drive and read the fcaps BPF programs. */
#ifndef FCAPS_BPFCTL_H
#define FCAPS_BPFCTL_H

/* Errors, the same way in every subcommand: a runtime error names the
 * command and returns 1; a usage error also prints the usage and returns 2,
 * both on stderr. */
int fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int usage(const char *cmd, const char *args, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

int cmd_load(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_mode(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_decisions(int argc, char **argv);
int cmd_policy(int argc, char **argv);

#endif
