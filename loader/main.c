// SPDX-License-Identifier: GPL-2.0
/* fcapsctl: legacy file capabilities and their BPF enforcement. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "main.h"

bool json_output;
bool pretty_output;
int verbose;

static const char usage_text[] =
	"usage: fcapsctl [OPTIONS] COMMAND [ARGS]   (fcapsctl COMMAND --help for its own)\n"
	"\n"
	"Legacy (2006) file capabilities: values tagged v1 (0x19980330, caps 0-31)\n"
	"or v3 (0x20080522, caps 0-63) in security.capability, and the BPF programs\n"
	"that enforce them.\n"
	"\n"
	"COMMAND := { setcap | getcap | load | unload | status | mode | set |\n"
	"             decisions | policy | help }\n"
	"  setcap, getcap   write and read a file's legacy value\n"
	"  load, unload     load, attach and pin the BPF programs; remove them\n"
	"  status           mode, switches, programs, maps, counters\n"
	"  mode, set        enforce or shadow; the exec, kill and nosuid switches\n"
	"  decisions        the BPF decision records (and the kernel's)\n"
	"  policy           the BPF policy: import, scan, add, del, list\n"
	"\n"
	"OPTIONS := { -j|--json | -p|--pretty | -v|--verbose | -h|--help }\n";

static void vmessage(FILE *f, const char *cmd, const char *fmt, va_list ap)
{
	fprintf(f, "fcapsctl %s: ", cmd);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
}

static void json_error(const char *cmd, const char *fmt, va_list ap)
{
	json_object *o = json_object_new_object();
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	json_object_object_add(o, "command", json_object_new_string(cmd));
	json_object_object_add(o, "error", json_object_new_string(msg));
	json_print(o);
}

int p_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(stderr, cmd, fmt, ap);
	va_end(ap);
	if (json_output) {
		va_start(ap, fmt);
		json_error(cmd, fmt, ap);
		va_end(ap);
	}
	return 1;
}

int p_usage(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(stderr, cmd, fmt, ap);
	va_end(ap);
	fputs(usage, stderr);
	if (json_output) {
		va_start(ap, fmt);
		json_error(cmd, fmt, ap);
		va_end(ap);
	}
	return 2;
}

void p_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fcapsctl %s: warning: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int print_help(const char *usage)
{
	fputs(usage, stdout);
	return 0;
}

int cmd_select(const char *group, const char *usage, const struct cmd *cmds,
	       int argc, char **argv)
{
	if (argc < 1)
		return p_usage(group, usage, "needs a subcommand");
	if (!strcmp(argv[0], "help") || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))
		return print_help(usage);
	for (const struct cmd *c = cmds; c->name; c++) {
		if (!strcmp(argv[0], c->name)) {
			/* getopt's messages name the command as ours do */
			char name[64];

			snprintf(name, sizeof(name), "fcapsctl %s %s", group, c->name);
			argv[0] = name;
			optind = 1;
			return c->func(argc, argv);
		}
	}
	return p_usage(group, usage, "unknown subcommand '%s'", argv[0]);
}

int next_opt(int argc, char **argv, const char *shortopts, const struct option *longopts,
	     const char *cmd, const char *usage, int *done)
{
	int c = getopt_long(argc, argv, shortopts, longopts, NULL);

	switch (c) {
	case 'h':
		*done = print_help(usage);
		break;
	case 'j':
		json_output = true;
		return next_opt(argc, argv, shortopts, longopts, cmd, usage, done);
	case '?':
		*done = p_usage(cmd, usage, "bad option (getopt says why above)");
		break;
	}
	return c;
}

void json_print(json_object *o)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
		    (pretty_output ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN);

	puts(json_object_to_json_string_ext(o, flags));
	json_object_put(o);
}

/* libbpf's warnings always; its info and debug lines (the verifier log of
 * every program) with --verbose */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level != LIBBPF_WARN && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return print_help(usage_text);
}

static const struct cmd cmds[] = {
	{ "help", do_help },
	{ "setcap", do_setcap },
	{ "getcap", do_getcap },
	{ "load", do_load },
	{ "unload", do_unload },
	{ "status", do_status },
	{ "mode", do_mode },
	{ "set", do_set },
	{ "decisions", do_decisions },
	{ "policy", do_policy },
	{ 0 }
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	libbpf_set_print(libbpf_print);
	/* '+': the options before the command only; each command has its own */
	while ((c = getopt_long(argc, argv, "+jpvh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json_output = true;
			break;
		case 'p':
			json_output = pretty_output = true;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			return print_help(usage_text);
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		fputs(usage_text, stderr);
		return 2;
	}
	for (const struct cmd *cmd = cmds; cmd->name; cmd++) {
		if (!strcmp(argv[0], cmd->name)) {
			char name[64];

			/* getopt's messages name the command as ours do */
			snprintf(name, sizeof(name), "fcapsctl %s", cmd->name);
			argv[0] = name;
			optind = 1;	/* each command parses its own, from argv[1] */
			return cmd->func(argc, argv);
		}
	}
	fprintf(stderr, "fcapsctl: unknown command '%s'\n", argv[0]);
	fputs(usage_text, stderr);
	return 2;
}
