// SPDX-License-Identifier: GPL-2.0
/* fcapsctl: legacy file capabilities from the command line. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bpfctl.h"
#include "capfile.h"
#include "records.h"
#include <bpf/libbpf.h>

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

static const char *prog = "fcapsctl";

int fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", prog, cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int usage(const char *cmd, const char *args, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", prog, cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: %s %s %s\n", prog, cmd, args);
	return 2;
}

static int usage_error(const struct command *cmd, const char *fmt, const char *arg)
{
	return usage(cmd->name, cmd->usage, fmt, arg);
}

static int cmd_setcap(int argc, char **argv);
static int cmd_getcap(int argc, char **argv);

static const struct command commands[] = {
	{ "setcap", cmd_setcap, "PATH CAPTEXT [--format v1|v3]",
	  "write a legacy security.capability value" },
	{ "getcap", cmd_getcap, "[--json] PATH...",
	  "print the legacy security.capability values of files" },
	{ "load", cmd_load, "[--mode enforce|shadow] [--policy FILE] [--scan DIR]",
	  "load, attach and pin the BPF programs" },
	{ "unload", cmd_unload, "", "detach and unpin them" },
	{ "status", cmd_status, "[--json]", "mode, switches, programs, maps, counters" },
	{ "mode", cmd_mode, "enforce|shadow", "return decisions, or only record them" },
	{ "set", cmd_set, "exec=0|1 kill=0|1 nosuid_ignore=0|1", "the BPF switches" },
	{ "decisions", cmd_decisions, "[--json] [--clear] [--map M]", "BPF and kernel decision records" },
	{ "policy", cmd_policy, "import|scan|add|del|list ...", "the BPF policy map" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_usage(FILE *f)
{
	fprintf(f, "usage: %s [-v|--verbose] COMMAND [ARGS]   (%s COMMAND --help for more)\n\n"
		"Legacy (2006) file capabilities: write and read security.capability\n"
		"values tagged v1 (0x19980330, caps 0-31) or v3 (0x20080522, caps 0-63).\n\n"
		"commands:\n", prog, prog);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-9s %-50s %s\n", commands[i].name, commands[i].usage,
			commands[i].summary);
}

static int cmd_help(const struct command *cmd, const char *more)
{
	printf("usage: %s %s %s\n%s\n%s", prog, cmd->name, cmd->usage,
	       cmd->summary, more);
	return 0;
}

static int cmd_setcap(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const struct command *cmd = &commands[0];
	struct fcaps_sets sets;
	__u32 tag = 0;
	char err[256];
	int c, rc;

	while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "v1"))
				tag = FCAPS_V1_TAG;
			else if (!strcmp(optarg, "v3"))
				tag = FCAPS_V3_TAG;
			else
				return usage_error(cmd, "--format must be v1 or v3, not '%s'", optarg);
			break;
		case 'h':
			return cmd_help(cmd,
				"CAPTEXT is libcap text, e.g. 'cap_net_raw,cap_kill+ep cap_chown+i':\n"
				"e, p and i fill the value's effective, permitted and inheritable\n"
				"sets. Without --format, v1 is written when every capability is\n"
				"below 32, else v3. Needs CAP_SETFCAP and a kernel that accepts\n"
				"legacy values (the patched fcaps kernel).\n");
		default:
			return usage_error(cmd, "%s", "bad option");
		}
	}
	if (argc - optind != 2)
		return usage_error(cmd, "%s", "needs PATH and CAPTEXT");
	if (fcaps_sets_from_text(argv[optind + 1], &sets, err, sizeof(err)))
		return usage_error(cmd, "%s", err);
	if (tag == FCAPS_V1_TAG &&
	    ((sets.effective | sets.permitted | sets.inheritable) >> 32))
		return usage_error(cmd, "%s", "v1 names capabilities 0-31 only; use --format v3");
	rc = fcaps_write_file(argv[optind], &sets, tag);
	if (rc) {
		fprintf(stderr, "%s setcap: writing security.capability of %s: %s%s\n",
			prog, argv[optind], strerror(-rc),
			rc == -EINVAL ? " (does this kernel accept legacy values?)" : "");
		return 1;
	}
	return 0;
}

static const char *form_name(enum fcaps_form form, __u32 tag)
{
	if (form == FCAPS_MALFORMED)
		return "malformed";
	return tag == FCAPS_V1_TAG ? "v1" : "v3";
}

/* The value's bytes as hex, "..." past what was kept */
static void hex_of(const __u8 *buf, __u32 len, char *out)
{
	for (__u32 i = 0; i < len && i < FCAPS_MAX_SIZE; i++)
		out += sprintf(out, "%02x", buf[i]);
	strcpy(out, len > FCAPS_MAX_SIZE ? "..." : "");
}

static int getcap_one(const char *path, int json)
{
	__u8 buf[FCAPS_MAX_SIZE];
	struct fcaps_sets sets = { 0 };
	char *text = NULL, hex[2 * FCAPS_MAX_SIZE + 4], mask[24];
	enum fcaps_form form;
	const char *name;
	__u32 len = 0;
	int rc = fcaps_read_file(path, buf, &len);

	if (rc && rc != -ENODATA)
		return fail("getcap", "reading security.capability of %s: %s", path,
			    strerror(-rc));
	form = rc ? FCAPS_NOT_LEGACY : fcaps_decode(buf, len, &sets);
	if (form == FCAPS_WELL_FORMED)
		text = fcaps_sets_to_text(&sets);
	name = rc ? "none" : form == FCAPS_NOT_LEGACY ? "not-legacy" :
	       form_name(form, fcaps_le32(buf));
	hex_of(buf, rc ? 0 : len, hex);
	if (json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "path", json_object_new_string(path));
		json_object_object_add(o, "form", json_object_new_string(name));
		json_object_object_add(o, "size", json_object_new_uint64(len));
		if (!rc)
			json_object_object_add(o, "value", json_object_new_string(hex));
		if (form == FCAPS_WELL_FORMED) {
			const __u64 *v[] = { &sets.effective, &sets.permitted, &sets.inheritable };
			const char *k[] = { "effective", "permitted", "inheritable" };

			for (int i = 0; i < 3; i++) {
				snprintf(mask, sizeof(mask), "%#llx", (unsigned long long)*v[i]);
				json_object_object_add(o, k[i], json_object_new_string(mask));
			}
			json_object_object_add(o, "text", json_object_new_string(text ? text : ""));
		}
		json_print(o);
	} else if (rc) {
		printf("%s: no security.capability\n", path);
	} else if (form == FCAPS_NOT_LEGACY) {
		printf("%s: not a legacy value (%u bytes): %s\n", path, len, hex);
	} else if (form == FCAPS_MALFORMED) {
		printf("%s: malformed legacy value (%u bytes): %s\n", path, len, hex);
	} else {
		printf("%s: %s %s\n", path, name, text ? text : "?");
	}
	free(text);
	return 0;
}

static int cmd_getcap(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const struct command *cmd = &commands[1];
	int c, json = 0, rc = 0;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			return cmd_help(cmd,
				"Prints each file's legacy value as capability text, or says that\n"
				"it is malformed (with its bytes), not legacy, or absent.\n"
				"--json prints one object per file.\n");
		default:
			return usage_error(cmd, "%s", "bad option");
		}
	}
	if (optind == argc)
		return usage_error(cmd, "%s", "needs at least one PATH");
	for (int i = optind; i < argc; i++)
		rc |= getcap_one(argv[i], json);
	return rc;
}

static int verbose;

/* libbpf's warnings always; its info and debug lines (the verifier log of
 * every program) with --verbose */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level != LIBBPF_WARN && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

int main(int argc, char **argv)
{
	libbpf_set_print(libbpf_print);
	if (argc > 1 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--verbose"))) {
		verbose = 1;
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	if (argc < 2) {
		print_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		print_usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			optind = 1;
			return commands[i].run(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	print_usage(stderr);
	return 2;
}
