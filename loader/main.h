/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fcapsctl's command line, in bpftool's shape: main.c dispatches to one
 * command group a file, each with its own usage text (its only one) and
 * its own table when it has subcommands. Errors go through p_err() and
 * p_usage(), so that they look the same everywhere and come out as JSON
 * under -j.
 */
#ifndef FCAPS_MAIN_H
#define FCAPS_MAIN_H

#include <getopt.h>
#include <stdbool.h>
#include <json-c/json.h>

extern bool json_output;	/* -j, --json: every command prints JSON */
extern bool pretty_output;	/* -p, --pretty: indented JSON */
extern int verbose;		/* -v: libbpf's log, the verifier's included */

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
};

/*
 * Exit statuses: 0 done, 1 a runtime error (p_err), 2 a usage error
 * (p_usage), both on stderr ("fcapsctl CMD: why"), and under -j also as
 * {"error": ...} on stdout.
 */
int p_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ... followed by the command's usage text @usage */
int p_usage(const char *cmd, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void p_warn(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print @usage on stdout: a command's --help */
int print_help(const char *usage);

/*
 * Run the subcommand of @cmds that argv[0] names (argc >= 1), or say that
 * @group has none such; @usage is the group's.
 */
int cmd_select(const char *group, const char *usage, const struct cmd *cmds,
	       int argc, char **argv);

/*
 * getopt_long() over a command's arguments (argv[0] is the command), with
 * --help (print @usage, 0) and --json (set json_output) understood by
 * every command. Returns the option, -1 at the end, or 'h'/'?' for the
 * caller to return @done from: 0 after --help, 2 after a bad option.
 */
int next_opt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	     const char *cmd, const char *usage, int *done);

/* Print @o as one line (or indented, -p) and release it. */
void json_print(json_object *o);

/* The command groups */
int do_setcap(int argc, char **argv);
int do_getcap(int argc, char **argv);
int do_load(int argc, char **argv);
int do_unload(int argc, char **argv);
int do_status(int argc, char **argv);
int do_mode(int argc, char **argv);
int do_set(int argc, char **argv);
int do_decisions(int argc, char **argv);
int do_policy(int argc, char **argv);

#endif
