// SPDX-License-Identifier: GPL-2.0
/* setcap, getcap: a file's legacy security.capability value. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile.h"
#include "main.h"

static const char setcap_usage[] =
	"usage: fcapsctl setcap [--format v1|v3] PATH CAPTEXT\n"
	"       fcapsctl getcap [--json] PATH...\n"
	"\n"
	"setcap writes a legacy value: CAPTEXT is libcap text, e.g.\n"
	"'cap_net_raw,cap_kill+ep cap_chown+i', whose e, p and i fill the value's\n"
	"effective, permitted and inheritable sets; an empty text is refused (it\n"
	"would take every capability from root). Without --format, v1 is written\n"
	"when every capability is below 32, else v3. Needs CAP_SETFCAP and a\n"
	"kernel that accepts legacy values (the patched fcaps kernel).\n"
	"getcap prints each file's legacy value as capability text, or says that\n"
	"it is malformed (with its bytes), not legacy, or absent; --json prints\n"
	"one object per file.\n";

int do_setcap(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct fcaps_sets sets;
	__u32 tag = 0;
	char err[256];
	int c, rc, done;

	while ((c = next_opt(argc, argv, "f:h", opts, "setcap", setcap_usage, &done)) != -1) {
		if (c == 'h' || c == '?')
			return done;
		if (!strcmp(optarg, "v1"))
			tag = FCAPS_V1_TAG;
		else if (!strcmp(optarg, "v3"))
			tag = FCAPS_V3_TAG;
		else
			return p_usage("setcap", setcap_usage, "--format must be v1 or v3, not '%s'",
				       optarg);
	}
	if (argc - optind != 2)
		return p_usage("setcap", setcap_usage, "needs PATH and CAPTEXT");
	if (fcaps_sets_from_text(argv[optind + 1], &sets, err, sizeof(err)))
		return p_usage("setcap", setcap_usage, "%s", err);
	if (tag == FCAPS_V1_TAG &&
	    ((sets.effective | sets.permitted | sets.inheritable) >> 32))
		return p_usage("setcap", setcap_usage,
			       "v1 names capabilities 0-31 only; use --format v3");
	rc = fcaps_write_file(argv[optind], &sets, tag);
	if (rc)
		return p_err("setcap", "writing security.capability of %s: %s%s", argv[optind],
			     strerror(-rc),
			     rc == -EINVAL ? " (does this kernel accept legacy values?)" : "");
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

static void getcap_json(const char *path, const char *form, __u32 len, const char *hex,
			const struct fcaps_sets *sets, const char *text)
{
	static const char *const names[] = { "effective", "permitted", "inheritable" };
	const __u64 v[] = { sets->effective, sets->permitted, sets->inheritable };
	json_object *o = json_object_new_object();
	char mask[24];

	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "form", json_object_new_string(form));
	json_object_object_add(o, "size", json_object_new_uint64(len));
	if (hex)
		json_object_object_add(o, "value", json_object_new_string(hex));
	if (text) {
		for (int i = 0; i < 3; i++) {
			snprintf(mask, sizeof(mask), "%#llx", (unsigned long long)v[i]);
			json_object_object_add(o, names[i], json_object_new_string(mask));
		}
		json_object_object_add(o, "text", json_object_new_string(text));
	}
	json_print(o);
}

static int getcap_one(const char *path)
{
	__u8 buf[FCAPS_MAX_SIZE];
	struct fcaps_sets sets = { 0 };
	char *text = NULL, hex[2 * FCAPS_MAX_SIZE + 4];
	enum fcaps_form form;
	const char *name;
	__u32 len = 0;
	int rc = fcaps_read_file(path, buf, &len);

	if (rc && rc != -ENODATA)
		return p_err("getcap", "reading security.capability of %s: %s", path,
			     strerror(-rc));
	form = rc ? FCAPS_NOT_LEGACY : fcaps_decode(buf, len, &sets);
	if (form == FCAPS_WELL_FORMED)
		text = fcaps_sets_to_text(&sets);
	name = rc ? "none" : form == FCAPS_NOT_LEGACY ? "not-legacy" :
	       form_name(form, fcaps_le32(buf));
	hex_of(buf, rc ? 0 : len, hex);
	if (json_output)
		getcap_json(path, name, len, rc ? NULL : hex, &sets,
			    form == FCAPS_WELL_FORMED ? (text ? text : "") : NULL);
	else if (rc)
		printf("%s: no security.capability\n", path);
	else if (form == FCAPS_NOT_LEGACY)
		printf("%s: not a legacy value (%u bytes): %s\n", path, len, hex);
	else if (form == FCAPS_MALFORMED)
		printf("%s: malformed legacy value (%u bytes): %s\n", path, len, hex);
	else
		printf("%s: %s %s\n", path, name, text ? text : "?");
	free(text);
	return 0;
}

int do_getcap(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, rc = 0, done;

	while ((c = next_opt(argc, argv, "jh", opts, "getcap", setcap_usage, &done)) != -1)
		return done;
	if (optind == argc)
		return p_usage("getcap", setcap_usage, "needs at least one PATH");
	for (int i = optind; i < argc; i++)
		rc |= getcap_one(argv[i]);
	return rc;
}
