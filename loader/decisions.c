// SPDX-License-Identifier: GPL-2.0
/* decisions: the BPF decision records, and the kernel's (kdecisions). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include "main.h"
#include "pins.h"
#include "records.h"
#include "ring.h"

static const char decisions_usage[] =
	"usage: fcapsctl decisions [--json | --raw] [--clear] [--map decisions|kdecisions]\n"
	"\n"
	"Print the BPF decisions and the kernel's (kdecisions), or those of one\n"
	"map, in slot order, one line a record: the hook, the result as an errno\n"
	"name, capability sets as libcap names ('none', 'all'), the value's tag\n"
	"(v1, v3: legacy; vfs-v2, vfs-v3: 6.1's). --json prints every field of\n"
	"the record as a number, from the record's BTF type; --raw the record as\n"
	"libbpf's BTF dump prints it. --clear frees the slots of the records\n"
	"printed, once all of them are written: none if writing fails.\n";

static const char *const hook_names[FCAPS_NHOOKS] = {
#define HOOK_NAME(up, low, what) #low,
	FCAPS_HOOKS(HOOK_NAME)
#undef HOOK_NAME
};

static const char *hook_name_of(const char *member, __u64 v)
{
	if (strcmp(member, "hook"))
		return NULL;
	return v < FCAPS_NHOOKS ? hook_names[v] : "?";
}

/* A capability set as libcap names: "cap_chown,cap_kill", "none", "all";
 * in one of a few static buffers, so that a line may hold several */
static const char *set_text(__u64 set)
{
	static char bufs[12][512];
	static unsigned int next;
	char *buf = bufs[next++ % 12];
	size_t off = 0, len = sizeof(bufs[0]);

	if (!set)
		return "none";
	if ((set & FCAPS_VALID_MASK) == FCAPS_VALID_MASK)
		return (set & ~FCAPS_VALID_MASK) ? "all+" : "all";
	buf[0] = 0;
	for (int c = 0; c < 64 && off < len; c++) {
		char *name;

		if (!(set >> c & 1))
			continue;
		name = cap_to_name(c);
		off += snprintf(buf + off, len - off, "%s%s", off ? "," : "", name ? name : "?");
		cap_free(name);
	}
	return buf;
}

static const char *tag_text(__u32 tag, char *buf, size_t len)
{
	if (!tag)
		return "-";
	if (tag == FCAPS_V1_TAG)
		return "v1";
	if (tag == FCAPS_V3_TAG)
		return "v3";
	if ((tag & FCAPS_61_REVISION_MASK) >= FCAPS_61_REVISION_1 &&
	    (tag & FCAPS_61_REVISION_MASK) <= FCAPS_61_REVISION_3) {
		snprintf(buf, len, "vfs-v%u", tag >> 24);
		return buf;
	}
	snprintf(buf, len, "%#x", tag);
	return buf;
}

static const char *ret_text(int ret, char *buf, size_t len)
{
	const char *name = ret < 0 ? strerrorname_np(-ret) : NULL;

	if (!ret)
		return "0";
	if (name)
		return name;
	snprintf(buf, len, "%d", ret);
	return buf;
}

static void print_record(const char *map, const struct fcaps_decision *d)
{
	char tag[16], ret[16];

	printf("%-10s seq=%-7llu %-12s pid=%-6u %-7s", map, (unsigned long long)d->seq,
	       d->hook < FCAPS_NHOOKS ? hook_names[d->hook] : "?", d->pid,
	       ret_text(d->ret, ret, sizeof(ret)));
	if (d->hook == FCAPS_HOOK_EXEC) {
		printf(" %-6s %-9s file=%u:%u:%llu uid=%u euid=%u fE=%s fP=%s fI=%s",
		       tag_text(d->tag, tag, sizeof(tag)),
		       d->form == FCAPS_MALFORMED ? "malformed" : d->legacy ? "legacy" : "6.1",
		       d->dev >> 20, d->dev & 0xfffff, (unsigned long long)d->ino,
		       d->uid, d->euid, set_text(d->fe), set_text(d->fp), set_text(d->fi));
		printf(" pE=%s pP=%s pI=%s pA=%s old_pP=%s secure=%u setid=%u unsafe=%u"
		       " nosuid=%u\n", set_text(d->pe), set_text(d->pp), set_text(d->pi), set_text(d->pa),
		       set_text(d->old_pp), d->secureexec, d->setid, d->unsafe, d->nosuid);
		return;
	}
	if (d->hook == FCAPS_HOOK_INTEGRITY) {
		static const char *const ops[] = { "?", "bpf", "prog", "mmap", "pin", "knob" };

		printf(" %s arg=%u uid=%u euid=%u pP=%s pE=%s\n",
		       ops[d->op < 6 ? d->op : 0], d->arg, d->uid, d->euid, set_text(d->pp),
		       set_text(d->pe));
		return;
	}
	if (d->hook == FCAPS_HOOK_XATTR_GUARD) {
		printf(" %s %s%s file=%u:%u:%llu uid=%u euid=%u pP=%s pE=%s\n",
		       d->op == FCAPS_GUARD_REMOVE ? "remove" : "set",
		       (d->arg & ~FCAPS_GUARD_EMPTY) == FCAPS_GUARD_CAPS ? "security.capability" :
		       "security.*", d->arg & FCAPS_GUARD_EMPTY ? " (empty)" : "",
		       d->dev >> 20, d->dev & 0xfffff, (unsigned long long)d->ino, d->uid, d->euid,
		       set_text(d->pp), set_text(d->pe));
		return;
	}
	printf(" target=%u/%u sig=%d pP=%s pE=%s target_pP=%s same_userns=%u"
	       " cap_in_target_ns=%u explicit=%u\n", d->target, d->target_tgid, d->sig,
	       set_text(d->pp), set_text(d->pe), set_text(d->target_pp), d->same_userns,
	       d->cap_in_target_ns, d->explicit_cred);
}

enum { TEXT, JSON, RAW };

static int print_map(const char *map, int how, int clear)
{
	struct fcaps_decision d;
	struct records rec;
	struct ring r;
	__u64 *printed = NULL;	/* --clear: each slot's seq, freed once written */
	int fd, err, rc = 0;

	/* read-write even to read: a shared mapping needs a writable
	 * descriptor, though only --clear maps it writable */
	fd = map_fd(map, 0);
	if (fd < 0)
		return 1;
	err = records_open(fd, &rec);
	if (err) {
		close(fd);
		return p_err("decisions", "reading the BTF type of %s: %s", map, strerror(-err));
	}
	err = ring_open_fd(fd, &r, clear);
	close(fd);
	if (err) {
		records_close(&rec);
		return p_err("decisions", "mapping %s: %s", map, strerror(-err));
	}
	if (clear && !(printed = calloc(FCAPS_MAX_DECISIONS, sizeof(*printed)))) {
		rc = p_err("decisions", "%s: no memory for --clear", map);
		goto out;
	}
	for (__u32 i = 0; i < FCAPS_MAX_DECISIONS; i++) {
		if (!ring_read(&r, i, &d))
			continue;
		if (how == JSON && !pretty_output) {
			records_print_json(&rec, &d, map, hook_name_of);
		} else if (how == JSON) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "map", json_object_new_string(map));
			records_add_json(&rec, &d, hook_name_of, o);
			json_print(o);
		} else if (how == RAW) {
			printf("%-10s ", map);
			records_print_text(&rec, &d);
		} else {
			print_record(map, &d);
		}
		if (clear)
			printed[i] = d.seq;
	}
	/* a record is freed only once it is out: a full disk loses none */
	err = fflush(stdout) ? errno : 0;
	if (err || ferror(stdout)) {
		rc = p_err("decisions", "writing the records of %s: %s; no slot freed", map,
			   err ? strerror(err) : "a write failed");
		goto out;
	}
	for (__u32 i = 0; printed && i < FCAPS_MAX_DECISIONS; i++)
		if (printed[i])
			ring_free(&r, i, printed[i]);
out:
	free(printed);
	ring_close(&r);
	records_close(&rec);
	return rc;
}

int do_decisions(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "raw", no_argument, NULL, 'r' },
		{ "clear", no_argument, NULL, 'c' },
		{ "map", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static const char *const maps[] = { "decisions", "kdecisions" };
	int c, done, raw = 0, clear = 0, only = -1, rc = 0;

	while ((c = next_opt(argc, argv, "jrcm:h", opts, "decisions", decisions_usage,
			     &done)) != -1) {
		switch (c) {
		case 'r':
			raw = 1;
			break;
		case 'c':
			clear = 1;
			break;
		case 'm':
			if (strcmp(optarg, maps[0]) && strcmp(optarg, maps[1]))
				return p_usage("decisions", decisions_usage, "--map takes "
					       "decisions or kdecisions, not '%s'", optarg);
			only = !strcmp(optarg, maps[1]);
			break;
		default:
			return done;
		}
	}
	if (optind < argc)
		return p_usage("decisions", decisions_usage, "unknown argument '%s'",
			       argv[optind]);
	if (raw && json_output)
		return p_usage("decisions", decisions_usage, "--raw or --json, not both");
	for (int m = 0; m < 2 && !rc; m++)
		if (only < 0 || m == only)
			rc = print_map(maps[m], json_output ? JSON : raw ? RAW : TEXT, clear);
	return rc;
}
