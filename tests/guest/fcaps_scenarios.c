// SPDX-License-Identifier: GPL-2.0
/*
 * The scenario table of the kernel patch (SEMANTICS.md sections 1-5), run in
 * the guest on the patched kernel. Every expectation is written out by hand
 * from SEMANTICS.md; nothing here computes what the kernel should do.
 * Needs the test image (tests/lib/mkimage) as /dev/vda.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include "fcaps.h"
#include "fcaps_values.h"
#include "scenario.h"
#include "catalogue.h"


/*
 * Which path decides: the patched kernel's rules, or the BPF programs in
 * enforce mode (kernel switches at 0, or the stock kernel) with the policy
 * from a file. BPF cannot grant capabilities, so in BPF mode capped
 * processes get their caps from ambient sets instead (cast(), catalogue.h) and
 * exec rows compare the predicted credentials from the decision map.
 */
static enum { KERNEL, BPF_PATCHED, BPF_STOCK } path = KERNEL;
/* "bpf " before a BPF check; "bpf --record none " in the pass without
 * records, whose signal and scheduling rule is a code path of its own */
static const char *bpf_tag = "bpf ";
static int no_records;
/* --record denied: a record for each refusal, and none for the rest */
static int denied_only;


static void apply(struct switches s)
{
	if (path != KERNEL) {
		if (bpf_switches(!s.exec_off, !s.kill_off, s.nosuid_ignore)) {
			fprintf(stderr, "scenarios: cannot set the BPF switches\n");
			exit(1);
		}
		return;
	}
	reset_switches();
	if ((s.exec_off && set_switch("exec", 0)) ||
	    (s.kill_off && set_switch("kill", 0)) ||
	    (s.nosuid_ignore && set_switch("nosuid_ignore", 1))) {
		fprintf(stderr, "scenarios: cannot set switches\n");
		exit(1);
	}
}


/* A file of the image whose value is not legacy-tagged: 6.1's to refuse */
static int sixone_value(const char *file)
{
	const struct fcaps_test_value *v;

	if (strncmp(file, IMG, strlen(IMG)))
		return 0;
	v = fcaps_test_value(file + strlen(IMG));
	return v && !fcaps_test_kind_is_legacy(v->kind);
}

/* BPF: the outcome the workload sees, then the credentials BPF predicts. */
/* Does @r's chain unshare a user namespace (ids then map to its root)? */
static int in_userns(const struct exec_row *r)
{
	for (int i = 0; r->chain && r->chain[i]; i++)
		if (!strncmp(r->chain[i], "--userns", 8))
			return 1;
	return 0;
}

static void check_bpf_exec(const struct exec_row *r, const char *line)
{
	struct fcaps_decision d = {};
	int ok, found;
	uid_t euid;
	gid_t egid;

	if (path == BPF_STOCK && r->want_errno && sixone_value(r->file)) {
		/* 6.1 refuses a value it cannot parse or apply; the stock run's
		 * copy carries it in the policy only, so no kernel refuses it */
		skip("%sexec: %s: errno: 6.1's own %s needs the value on the file; "
		     "the stock run's copy has it in the policy only", bpf_tag, r->name,
		     r->want_errno == EINVAL ? "EINVAL" : "EPERM");
	} else {
		if (r->want_errno)
			ok = field(line, "exec_errno") == (unsigned long long)r->want_errno;
		else
			ok = !has_field(line, "exec_errno") &&
			     field(line, "secure") == (unsigned long long)r->secure;
		check(ok, "%sexec: %s: errno %d%s", bpf_tag, r->name, r->want_errno,
		      r->want_errno ? "" : ", AT_SECURE as predicted");
		if (!ok)
			printf("  got  %s\n", line);
	}
	found = !find_decision(FCAPS_HOOK_EXEC, field(line, "pid"), &d);
	if (denied_only) {
		ok = found == !!r->want_errno && (!found || d.ret == -r->want_errno);
		check(ok, "%sexec: %s: a record %s", bpf_tag, r->name,
		      r->want_errno ? "of the refusal" : "only of a refusal: none");
		return;
	}
	ok = found && d.ret == -r->want_errno;
	/* a record holds the initial namespace's ids: a namespace's root is
	 * the id its map gives 0 */
	euid = in_userns(r) && !r->want_euid ? d.root_uid : r->want_euid;
	/* ... and its gid 0 the creator's gid, which is its uid in these rows */
	egid = in_userns(r) && !r->want_egid ? d.root_uid : r->want_egid;
	if (ok && !r->want_errno)
		ok = d.euid == euid && d.pe == r->e && d.pp == r->p &&
		     d.pi == r->i && d.pa == r->a && d.secureexec == (__u32)r->secure &&
		     (!r->egid_set || d.egid == egid);
	check(ok, "%sexec: %s: decision record", bpf_tag, r->name);
	if (!ok && found)
		printf("  want ret=%d euid=%u pE=%#llx pP=%#llx pI=%#llx pA=%#llx secure=%d\n"
		       "  got  ret=%d euid=%u pE=%#llx pP=%#llx pI=%#llx pA=%#llx secure=%u"
		       " (namespace root %u, egid %u)\n",
		       -r->want_errno, r->want_euid, (unsigned long long)r->e,
		       (unsigned long long)r->p, (unsigned long long)r->i,
		       (unsigned long long)r->a, r->secure, d.ret, d.euid,
		       (unsigned long long)d.pe, (unsigned long long)d.pp,
		       (unsigned long long)d.pi, (unsigned long long)d.pa, d.secureexec,
		       d.root_uid, d.egid);
	else if (!ok)
		printf("  no decision record for pid %llu (%s)\n", field(line, "pid"), line);
}

/* On the stock kernel the image's values fail every exec (6.1 cannot read
 * them), so BPF_STOCK runs copies on tmpfs that carry them only in the
 * policy file. */
static const char *exec_path(const char *file, char *buf, size_t len)
{
	return path == BPF_STOCK ? stock_path(file, buf, len) : file;
}

static void run_exec(const struct exec_row *r)
{
	char buf[128];
	char *argv[24] = { (char *)exec_path(r->file, buf, sizeof(buf)), "status", NULL };
	gid_t egid = r->egid_set ? r->want_egid : r->c.uid;
	/* a chain may change the real ids on the way (--setuid) */
	uid_t ruid = r->chain ? r->want_euid : r->c.uid;
	gid_t rgid = r->chain ? egid : r->c.uid;
	const char *line;
	pid_t pid;
	int ok, n = 0;

	if (r->chain) {
		while (r->chain[n] && n < 20)
			argv[n] = (char *)r->chain[n], n++;
		argv[n++] = (char *)exec_path(r->file, buf, sizeof(buf));
		argv[n++] = "status";
		argv[n] = NULL;
	}
	/* -t: a row runs when its name matches (its checks are "NAME: ...") */
	if (!tap_selected("%sexec: %s", path == KERNEL ? "" : bpf_tag, r->name))
		return;
	if (path != KERNEL && r->bpf_skip) {
		skip("%sexec: %s: %s", bpf_tag, r->name, r->bpf_skip);
		return;
	}
	apply(r->sw);
	line = run_to_end(&r->c, argv, &pid);
	if (path != KERNEL) {
		check_bpf_exec(r, line);
		return;
	}
	/* exec never changes the real ids, nor the securebits it is given */
	if (r->want_errno)
		ok = field(line, "exec_errno") == (unsigned long long)r->want_errno;
	else
		ok = !has_field(line, "exec_errno") &&
		     field(line, "ruid") == ruid && field(line, "rgid") == rgid &&
		     field(line, "euid") == r->want_euid && field(line, "egid") == egid &&
		     /* exec sets the saved and fs ids to the effective ones */
		     field(line, "suid") == r->want_euid && field(line, "fsuid") == r->want_euid &&
		     field(line, "sgid") == egid && field(line, "fsgid") == egid &&
		     field(line, "Eff") == r->e && field(line, "Prm") == r->p &&
		     field(line, "Inh") == r->i && field(line, "Amb") == r->a &&
		     field(line, "secure") == (unsigned long long)r->secure &&
		     field(line, "securebits") == r->c.securebits;
	check(ok, "exec: %s", r->name);
	if (!ok) {
		if (r->want_errno)
			printf("  want exec_errno=%d\n", r->want_errno);
		else
			printf("  want ruid=%u euid=suid=fsuid=%u rgid=%u egid=sgid=fsgid=%u Eff=%#llx "
			       "Prm=%#llx Inh=%#llx Amb=%#llx secure=%d securebits=%u\n", ruid,
			       r->want_euid, rgid, egid, (unsigned long long)r->e,
			       (unsigned long long)r->p, (unsigned long long)r->i,
			       (unsigned long long)r->a, r->secure, r->c.securebits);
		printf("  got  %s\n", line);
	}
}

/* A security.* write or removal, then root's exec of the file (kernel path:
 * 6.1 on the stock kernel cannot write a legacy value at all) */
static void run_xattr(const struct xattr_row *r)
{
	struct xattr_out o;
	int ok;

	if (!tap_selected("xattr: %s", r->name))
		return;
	apply((struct switches){});
	if (run_xattr_spec(&r->x, &o)) {
		check(0, "xattr: %s: set up", r->name);
		return;
	}
	ok = (r->want_errno ? o.ret == -1 && o.err == r->want_errno : o.ret == 0) &&
	     (r->then_errno ? field(o.then_out, "exec_errno") == (unsigned long long)r->then_errno :
	      !has_field(o.then_out, "exec_errno") && field(o.then_out, "Prm") == r->then_p);
	check(ok, "xattr: %s", r->name);
	if (!ok)
		printf("  want errno %d, then exec_errno %d Prm=%#llx\n  got  %s  then %s\n",
		       r->want_errno, r->then_errno, (unsigned long long)r->then_p, o.actor_out,
		       o.then_out);
}

/* What the ceiling takes again (caps_event.h): the kernel path decides it
 * in the capability module */
static void run_caps(const struct caps_row *r)
{
	struct caps_out o;
	int ok;

	if (!tap_selected("caps: %s", r->name))
		return;
	apply((struct switches){});
	run_caps_spec(&r->k, &o);
	ok = r->want_errno ? o.ret == -1 && o.err == r->want_errno : o.ret == 0;
	check(ok, "caps: %s", r->name);
	if (!ok)
		printf("  want errno %d\n  got  %s\n", r->want_errno, o.out);
}

/* Every malformed value on the image fails the exec with EPERM, for root
 * and for uid 1000 alike. */
static void run_malformed_execs(void)
{
	for (size_t n = 0; n < FCAPS_TEST_NVALUES; n++) {
		const struct fcaps_test_value *v = &fcaps_test_values[n];
		char path[64], name[96];

		if (v->kind != TV_MALFORMED)
			continue;
		snprintf(path, sizeof(path), IMG "%s", v->name);
		for (uid_t uid = 0; uid <= U; uid += U) {
			struct exec_row r = { name, path, { uid }, {}, EPERM };

			snprintf(name, sizeof(name), "ext4 %s, uid %u: EPERM", v->name, uid);
			run_exec(&r);
		}
	}
}



/* The permitted set BPF should record for an actor of a pair row: its own
 * namespace's full set after unshare, a legacy fixture's fP, root's full
 * set, or nothing; a thread that emptied its sets has none. */
static __u64 actor_pp(const char *file, uid_t uid, int userns)
{
	const struct fixture *f = fixture(file);

	if (userns)
		return FULL;
	return f && f->tag ? f->p : uid ? 0 : FULL;
}

/* The BPF record of one decision: its result and both permitted sets. */
static void check_bpf_record(const struct pair_row *r, const char *what, pid_t sp, pid_t tp,
			     int want_errno, __u64 spp, __u64 tpp)
{
	__u32 hook = !r->op ? FCAPS_HOOK_KILL : !strcmp(r->op, "nice") ? FCAPS_HOOK_SETNICE :
		     !strcmp(r->op, "sched") ? FCAPS_HOOK_SETSCHEDULER :
		     !strcmp(r->op, "prlimit") ? FCAPS_HOOK_PRLIMIT :
		     !strcmp(r->op, "sigio") ? FCAPS_HOOK_SIGIO : FCAPS_HOOK_SETIOPRIO;
	struct fcaps_decision d = {};
	int found, ok;

	if (no_records)
		return;
	found = !find_decision_to(hook, sp, tp, &d);
	if (r->uid_check || (denied_only && !want_errno))
		ok = !found;
	else
		ok = found && d.ret == -want_errno && d.target == (__u32)tp &&
		     d.pp == spp && d.target_pp == tpp;
	check(ok, "bpf %s: %s: decision record%s", r->op ? "sched" : "signal", r->name, what);
	if (!ok && found)
		printf("  want ret=%d pP=%#llx target_pP=%#llx%s\n  got  ret=%d pP=%#llx "
		       "target_pP=%#llx\n", -want_errno, (unsigned long long)spp,
		       (unsigned long long)tpp, r->uid_check ? " (no record)" : "", d.ret,
		       (unsigned long long)d.pp, (unsigned long long)d.target_pp);
	else if (!ok)
		printf("  no record for sender pid %d, target %d\n", sp, tp);
}

static void check_bpf_pair(const struct pair_row *r, const struct pair_out *o)
{
	__u64 spp = actor_pp(r->sender, r->suid, r->sender_userns);

	if (!r->group) {
		/* prlimit's hook sees the target's credentials, not the task */
		check_bpf_record(r, "", o->sender,
				 r->op && !strcmp(r->op, "prlimit") ? 0 : o->target, r->want_errno, spp,
				 actor_pp(r->target, r->tuid, r->target_userns || r->target_nested));
		return;
	}
	/* one decision per member; a SIGTERM that kills was allowed */
	check_bpf_record(r, " (leader)", o->sender, o->target,
			 r->want_target_alive ? EPERM : 0, spp,
			 actor_pp(r->target, r->tuid, r->target_userns || r->target_nested));
	check_bpf_record(r, " (member)", o->sender, o->member,
			 r->want_member_alive ? EPERM : 0, spp,
			 actor_pp(r->member, r->muid, 0));
}

/* A signal between two threads of one process (tgkill). */
static void run_thread_row(const struct pair_row *r)
{
	struct actor a = cast(r->target, r->tuid, path != KERNEL, r->sw);
	const char *out;
	pid_t pid;
	int ok;

	apply(r->sw);
	out = run_thread_event(&a, r->sig, r->thread_drop, &pid);
	ok = field(out, "kill") == (r->want_errno ? ~0ULL : 0) &&
	     (!r->want_errno || field(out, "errno") == (unsigned long long)r->want_errno) &&
	     field(out, "delivered") == (r->want_errno ? 0 : 1);
	check(ok, "%ssignal: %s", path == KERNEL ? "" : bpf_tag, r->name);
	if (!ok)
		printf("  want %s, got: %s\n", r->want_errno ? "EPERM" : "delivered", out);
	if (path != KERNEL) {
		__u64 pp = actor_pp(r->target, r->tuid, 0);

		check_bpf_record(r, "", (pid_t)field(out, "pid"), (pid_t)field(out, "tid"),
				 r->want_errno, r->thread_drop ? 0 : pp, pp);
	}
}

static void run_pair(const struct pair_row *r, pid_t *sender_pid, pid_t *target_pid)
{
	struct pair_spec s;
	struct pair_out o;
	int ok;

	if (!tap_selected("%s%s: %s", path == KERNEL ? "" : bpf_tag,
			  r->op ? "sched" : "signal", r->name))
		return;
	if (r->thread) {
		run_thread_row(r);
		return;
	}
	s = pair_spec_of(r, path != KERNEL);
	apply(r->sw);
	run_pair_spec(&s, &o);
	if (target_pid) {
		*target_pid = o.target;
		*sender_pid = o.sender;
	}
	if (r->op && !strcmp(r->op, "sigio"))
		/* the write succeeds: the refusal drops the signal */
		ok = has_field(o.sender_out, "sched") && !o.ret &&
		     o.target_alive == !!r->want_errno;
	else
		ok = has_field(o.sender_out, r->op ? "sched" : "kill") &&
		     o.ret == (r->want_errno ? -1 : 0) &&
		     (!r->want_errno || o.err == r->want_errno);
	if (r->group)
		ok = ok && o.target_alive == r->want_target_alive &&
		     o.member_alive == r->want_member_alive;
	check(ok, "%s%s: %s", path == KERNEL ? "" : bpf_tag, r->op ? "sched" : "signal", r->name);
	if (!ok) {
		printf("  want %s", r->want_errno ? "EPERM" : "success");
		if (r->group)
			printf(", leader %s, member %s", r->want_target_alive ? "alive" : "gone",
			       r->want_member_alive ? "alive" : "gone");
		printf("; got: %s", o.sender_out);
		if (r->group)
			printf(" (leader alive=%d, member alive=%d)", o.target_alive,
			       o.member_alive);
		printf("\n");
	}
	if (path != KERNEL)
		check_bpf_pair(r, &o);
}

/* A capped process still gets SIGCHLD from a child that dropped every cap
 * (kernel-originated), while that child's own kill() is refused. */
static void run_sigchld(int kill_off)
{
	struct switches sw = { .kill_off = kill_off };
	struct actor a = cast(FC "v1_raw_ep", U, path != KERNEL, sw);
	char *argv[] = { (char *)a.file, "sigchld", NULL };
	const char *line;
	pid_t pid;
	int ok;

	apply(sw);
	line = run_to_end(&a.c, argv, &pid);
	ok = field(line, "sigchld") == 1 &&
	     field(line, "child_kill_errno") == (kill_off ? 0 : EPERM);
	check(ok, "%ssignal: kernel SIGCHLD reaches a capped parent; the child's "
	      "kill() %s", path == KERNEL ? "" : bpf_tag,
	      kill_off ? "passes with kill=0" : "gets EPERM");
	if (!ok)
		printf("  got: %s\n", line);
}

/* The 2006 regression: xinit (uid 1000, no caps) cannot stop the X server
 * it started when the server gained caps by exec. */
static void run_xinit(int kill_off)
{
	char *argv[] = { FC "plain", "xinit", FC "v1_raw_ep", NULL };
	struct creds c = { U };
	const char *out;
	pid_t pid;
	int ok;

	apply((struct switches){ .kill_off = kill_off });
	out = run_to_end(&c, argv, &pid);
	if (kill_off)
		ok = field(out, "kill") == 0 && field(out, "child_alive") == 0 &&
		     field(out, "child_signal") == SIGTERM;
	else
		ok = field(out, "kill") == ~0ULL && field(out, "errno") == EPERM &&
		     field(out, "child_alive") == 1;
	check(ok, "signal: xinit %s its capped X server%s",
	      kill_off ? "terminates" : "cannot terminate", kill_off ? " with kill=0" : "");
	if (!ok)
		printf("  got: %s\n", out);
}

/* ---- writing and reading values ---- */

static int setxattr_as(uid_t uid, const char *path, const void *v, size_t len)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (uid && setresuid(uid, uid, uid))
			_exit(126);
		_exit(setxattr(path, FCAPS_XATTR_NAME, v, len, 0) ? errno : 0);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * What getxattr and setxattr do with each kind of value (SEMANTICS 1):
 * legacy-tagged values read back raw and only well-formed ones can be
 * written; 6.1's own formats keep 6.1's rules (a v3 value with rootid 0
 * reads back as the v2 value of the same sets in the initial namespace,
 * one with rootid 1000 as it is);
 * a value 6.1 cannot parse is EINVAL both ways.
 */
static void run_xattrs(void)
{
	for (size_t n = 0; n < FCAPS_TEST_NVALUES; n++) {
		const struct fcaps_test_value *v = &fcaps_test_values[n];
		int writable = v->kind == TV_LEGACY || v->kind == TV_V2 || v->kind == TV_V3;
		int readable = writable || v->kind == TV_MALFORMED;
		__u8 want[32];
		__u32 want_len = v->len;
		char path[64], img[64];
		__u8 got[64];
		ssize_t len;
		int rc;

		/* rootid 0: the initial namespace's root owns it, so it reads
		 * back as VFS_CAP_REVISION_2, effective flag kept; another rootid
		 * reads back as it is */
		int as_v2 = v->kind == TV_V3 && !(v->bytes[20] | v->bytes[21] | v->bytes[22] |
						  v->bytes[23]);

		memcpy(want, v->bytes, sizeof(want));
		if (as_v2) {
			want[3] = 0x02;
			want_len = 20;
		}
		snprintf(img, sizeof(img), IMG "%s", v->name);
		len = getxattr(img, FCAPS_XATTR_NAME, got, sizeof(got));
		if (readable)
			check(len == (ssize_t)want_len && !memcmp(got, want, want_len),
			      "getxattr: %s (%s) reads back %s (%zd of %u bytes)", v->name,
			      fcaps_test_kind_name(v->kind), as_v2 ? "as v2" : "raw",
			      len, want_len);
		else
			check(len < 0 && errno == EINVAL, "getxattr: %s (%s): EINVAL (6.1) (%s)",
			      v->name, fcaps_test_kind_name(v->kind),
			      len < 0 ? strerror(errno) : "read");

		snprintf(path, sizeof(path), FC "x_%s", v->name);
		close(open(path, O_CREAT | O_WRONLY, 0755));
		if (chown(path, U, U))
			perror(path);
		rc = setxattr_as(0, path, v->bytes, v->len);
		check(rc == (writable ? 0 : EINVAL), "setxattr: uid 0 writes %s (%s): %s (got %s)",
		      v->name, fcaps_test_kind_name(v->kind), writable ? "ok" : "EINVAL",
		      rc ? strerror(rc) : "ok");
		/* a value nobody may write is EINVAL before any privilege test
		 * (6.1's order), so uid 1000 learns the same as root */
		if (!writable) {
			rc = setxattr_as(U, path, v->bytes, v->len);
			check(rc == EINVAL, "setxattr: uid 1000 writes %s (%s) on its own file: "
			      "EINVAL (got %s)", v->name, fcaps_test_kind_name(v->kind),
			      rc ? strerror(rc) : "ok");
		}
		if (writable) {
			len = getxattr(path, FCAPS_XATTR_NAME, got, sizeof(got));
			check(len == (ssize_t)want_len && !memcmp(got, want, want_len),
			      "getxattr: %s written on tmpfs reads back %s", v->name,
			      as_v2 ? "as v2" : "unchanged");
			rc = setxattr_as(U, path, v->bytes, v->len);
			check(rc == EPERM, "setxattr: uid 1000 writes %s on its own file: "
			      "EPERM (got %s)", v->name, rc ? strerror(rc) : "ok");
		}
	}
}

/* ---- the switches themselves ---- */

static int read_switch(const char *name)
{
	char path[128], buf[16] = "";
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/kernel/fcaps/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	if (fd >= 0)
		close(fd);
	/* the whole text, as one int prints: a wider .maxlen adds words */
	return (buf[0] == '0' || buf[0] == '1') && !strcmp(buf + 1, "\n") ? buf[0] - '0' : -1;
}

/* @name's value as @uid reads it (mode 0644: anyone may), or -1 */
static int read_switch_as(uid_t uid, const char *name)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (setresuid(uid, uid, uid))
			_exit(255);
		_exit(read_switch(name) & 0xff);
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) != 255 ? WEXITSTATUS(status) : -1;
}

static int write_switch_as(uid_t uid, int drop_sys_admin, const char *name, int v)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (drop_sys_admin) {
			struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
			struct __user_cap_data_struct d[2];

			if (syscall(SYS_capget, &h, d))
				_exit(126);
			d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
			if (syscall(SYS_capset, &h, d))
				_exit(126);
		}
		if (uid && setresuid(uid, uid, uid))
			_exit(126);
		_exit(-set_switch(name, v));
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void run_switch_checks(void)
{
	static const char *names[] = { "exec", "kill", "nosuid_ignore" };
	int rc;

	reset_switches();
	for (int n = 0; n < 3; n++) {
		rc = write_switch_as(U, 0, names[n], n == 2);
		check(rc == EACCES, "sysctl: uid 1000 cannot write kernel.fcaps.%s (%s)",
		      names[n], rc ? strerror(rc) : "ok");
		rc = write_switch_as(0, 1, names[n], n == 2 ? 1 : 0);
		check(rc == EPERM && read_switch(names[n]) == (n == 2 ? 0 : 1),
		      "sysctl: root without CAP_SYS_ADMIN cannot write kernel.fcaps.%s (%s)",
		      names[n], rc ? strerror(rc) : "ok");
		rc = write_switch_as(0, 0, names[n], 2);
		check(rc == EINVAL, "sysctl: kernel.fcaps.%s refuses 2 (%s)", names[n],
		      rc ? strerror(rc) : "ok");
		rc = write_switch_as(0, 0, names[n], -1);
		check(rc == EINVAL && read_switch(names[n]) == (n == 2 ? 0 : 1),
		      "sysctl: kernel.fcaps.%s refuses -1 (%s)", names[n],
		      rc ? strerror(rc) : "ok");
		rc = read_switch_as(U, names[n]);
		check(rc == (n == 2 ? 0 : 1), "sysctl: uid 1000 reads kernel.fcaps.%s (got %d)",
		      names[n], rc);
		rc = write_switch_as(0, 0, names[n], n == 2 ? 1 : 0);
		check(rc == 0 && read_switch(names[n]) == (n == 2 ? 1 : 0),
		      "sysctl: root flips kernel.fcaps.%s", names[n]);
	}
	reset_switches();
}

/* ---- tracepoints ---- */

#define TRACING "/sys/kernel/tracing/"

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* The first line of @event whose pid field is @pid */
static char *trace_line(const char *trace, const char *event, pid_t pid)
{
	static char line[512];
	char key[64], want[32];
	const char *s, *e;

	snprintf(key, sizeof(key), " %s: ", event);
	snprintf(want, sizeof(want), " pid=%d ", pid);
	for (s = strstr(trace, key); s; s = strstr(e, key)) {
		e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		snprintf(line, sizeof(line), "%.*s", (int)(e - s), s);
		/* anywhere in the line: fcaps_channel's pid comes after its op */
		if (strstr(line, want))
			return line + 1;
	}
	return NULL;
}

static void run_trace(void)
{
	static char trace[1 << 16];
	char *argv[] = { FC "v1_sub", "status", NULL }, want[128], *l;
	const struct pair_row kill_row = { "traced kill", FC "v1_raw_ep", U,
					   FC "plain", U, NULL, SIGTERM, {}, EPERM };
	const struct pair_row nice_row = { "traced nice", FC "v1_raw_ep", U,
					   FC "plain", U, "nice", 0, {}, EPERM };
	const struct pair_row limit_row = { "traced prlimit", FC "v1_raw_ep", U,
					    FC "plain", U, "prlimit", 0, {}, EPERM };
	const struct pair_row sigio_row = { "traced SIGIO", FC "v1_raw_ep", U,
					    FC "plain", U, "sigio", 0, {}, EPERM };
	/* every set of the record different, capabilities above 31 in each */
	struct creds high = { 0, LAST | CHOWN, .bset_drop = RAW | BPF };
	char *high_argv[] = { FC "v3_high", "status", NULL };
	char *bad_argv[] = { IMG "m_v1_size15", "status", NULL };
	char *plain_argv[] = { FC "plain", "status", NULL };
	struct creds c = { U };
	pid_t pid, high_pid, bad_pid, plain_pid, sp = 0, tp = 0, nsp = 0, ntp = 0;
	pid_t lsp = 0, ltp = 0, isp = 0, itp = 0;
	struct stat st;
	size_t len;
	ssize_t n;
	int fd, ok;

	reset_switches();
	if (write_file(TRACING "events/fcaps/enable", "1") ||
	    write_file(TRACING "trace", "")) {
		check(0, "trace: enabling events/fcaps in tracefs");
		return;
	}
	run_to_end(&c, argv, &pid);
	run_to_end(&high, high_argv, &high_pid);
	run_to_end(&c, bad_argv, &bad_pid);
	run_to_end(&c, plain_argv, &plain_pid);
	run_pair(&kill_row, &sp, &tp);
	run_pair(&nice_row, &nsp, &ntp);
	run_pair(&limit_row, &lsp, &ltp);
	run_pair(&sigio_row, &isp, &itp);
	write_file(TRACING "events/fcaps/enable", "0");
	/* tracefs hands the text out a page or so a read */
	fd = open(TRACING "trace", O_RDONLY);
	len = 0;
	while (fd >= 0 && len < sizeof(trace) - 1 &&
	       (n = read(fd, trace + len, sizeof(trace) - 1 - len)) > 0)
		len += n;
	trace[len] = 0;
	if (fd >= 0)
		close(fd);

	stat(FC "v1_sub", &st);
	snprintf(want, sizeof(want), "dev=%u:%u ino=%lu ", major(st.st_dev),
		 minor(st.st_dev), (unsigned long)st.st_ino);
	l = trace_line(trace, "fcaps_exec", pid);
	ok = l && strstr(l, want) && field(l, "tag") == FCAPS_V1_TAG &&
	     field(l, "fE") == RAW && field(l, "fP") == (RAW | BIND) &&
	     field(l, "fI") == 0 && field(l, "legacy") == 1 &&
	     field(l, "pE") == RAW && field(l, "pP") == (RAW | BIND) &&
	     field(l, "pI") == 0 && field(l, "secureexec") == 1 && field(l, "ret") == 0;
	check(ok, "trace: fcaps_exec of v1_sub by uid 1000, field by field");
	if (!ok)
		printf("  want %s tag=0x19980330 fE=0x2000 fP=0x2400 legacy=1 pE=0x2000 "
		       "pP=0x2400 secureexec=1 ret=0\n  got  %s\n", want, l ? l : "(none)");

	l = trace_line(trace, "fcaps_exec", high_pid);
	ok = l && field(l, "tag") == FCAPS_V3_TAG && field(l, "fE") == BPF &&
	     field(l, "fP") == (BPF | PERFMON | RAW) && field(l, "fI") == LAST &&
	     field(l, "legacy") == 1 && field(l, "pE") == 0 &&
	     field(l, "pP") == (PERFMON | LAST) && field(l, "pI") == (LAST | CHOWN) &&
	     field(l, "secureexec") == 0 && field(l, "ret") == 0;
	check(ok, "trace: fcaps_exec of v3_high by root, pI and bset narrowed, field by field");
	if (!ok)
		printf("  want tag=0x20080522 fE=0x8000000000 fP=0xc000002000 fI=0x10000000000 "
		       "legacy=1 pE=0 pP=0x14000000000 pI=0x10000000001 secureexec=0 ret=0\n"
		       "  got  %s\n", l ? l : "(none)");
	l = trace_line(trace, "fcaps_exec", bad_pid);
	ok = l && field(l, "tag") == FCAPS_V1_TAG && field(l, "legacy") == 1 &&
	     field(l, "ret") == (unsigned long long)-EPERM;
	check(ok, "trace: fcaps_exec of a malformed v1 value: legacy, EPERM");
	if (!ok)
		printf("  want tag=0x19980330 legacy=1 ret=-1\n  got  %s\n", l ? l : "(none)");
	l = trace_line(trace, "fcaps_exec", plain_pid);
	ok = l && field(l, "tag") == 0 && field(l, "legacy") == 0 && field(l, "pP") == 0 &&
	     field(l, "secureexec") == 0 && field(l, "ret") == 0;
	check(ok, "trace: fcaps_exec of a file without a value: not legacy");
	if (!ok)
		printf("  want tag=0 legacy=0 pP=0 secureexec=0 ret=0\n  got  %s\n",
		       l ? l : "(none)");
	l = trace_line(trace, "fcaps_sched", nsp);
	ok = l && field(l, "target") == (unsigned long long)ntp && field(l, "op") == 1 &&
	     field(l, "pP") == 0 && field(l, "target_pP") == RAW &&
	     field(l, "ret") == (unsigned long long)-EPERM;
	check(ok, "trace: fcaps_sched of a denied setpriority, field by field");
	if (!ok)
		printf("  want target=%d op=1 pP=0 target_pP=0x2000 ret=-1\n  got  %s\n", ntp,
		       l ? l : "(none)");

	l = trace_line(trace, "fcaps_kill", sp);
	ok = l && field(l, "target") == (unsigned long long)tp &&
	     field(l, "sig") == SIGTERM && field(l, "pP") == 0 &&
	     field(l, "target_pP") == RAW && field(l, "cred") == 0 &&
	     field(l, "ret") == (unsigned long long)-EPERM;
	check(ok, "trace: fcaps_kill of a denied SIGTERM, field by field");
	if (!ok)
		printf("  want target=%d sig=15 pP=0 target_pP=0x2000 cred=0 ret=-1\n"
		       "  got  %s\n", tp, l ? l : "(none)");

	/* prlimit names no task (target 0) and reports its flags as sig:
	 * LSM_PRLIMIT_WRITE alone, the read before it being free */
	l = trace_line(trace, "fcaps_channel", lsp);
	ok = l && field(l, "op") == 0 && field(l, "target") == 0 && field(l, "sig") == 2 &&
	     field(l, "pP") == 0 && field(l, "target_pP") == RAW &&
	     field(l, "ret") == (unsigned long long)-EPERM;
	check(ok, "trace: fcaps_channel of a denied prlimit write, field by field");
	if (!ok)
		printf("  want op=0 target=0 sig=2 pP=0 target_pP=0x2000 ret=-1\n  got  %s\n",
		       l ? l : "(none)");
	/* the writer of the pipe is the owner that aimed it: its pid, sig 0 (SIGIO) */
	l = trace_line(trace, "fcaps_channel", isp);
	ok = l && field(l, "op") == 1 && field(l, "target") == (unsigned long long)itp &&
	     field(l, "sig") == 0 && field(l, "pP") == 0 && field(l, "target_pP") == RAW &&
	     field(l, "ret") == (unsigned long long)-EPERM;
	check(ok, "trace: fcaps_channel of a dropped SIGIO, field by field");
	if (!ok)
		printf("  want op=1 target=%d sig=0 pP=0 target_pP=0x2000 ret=-1\n  got  %s\n",
		       itp, l ? l : "(none)");
}


/* ---- the stock kernel ---- */

static int run_stock(void)
{
	const struct fcaps_test_value *v1 = &fcaps_test_values[0];
	const struct exec_row rows[] = {
		{ "stock: v1 on ext4 fails the exec with EINVAL", IMG "good_v1", { U },
		  {}, EINVAL },
		{ "stock: v3 on ext4 fails the exec with ERANGE", IMG "good_v3", { U },
		  {}, ERANGE },
		{ "stock: no xattr, uid 1000", FC "plain", { U }, {}, 0, U, 0, 0, 0, 0, 0 },
	};
	__u8 got[64];
	int rc;

	mkdir("/tmp/fc", 0755);
	if (mount("/dev/vda", "/mnt", "ext4", 0, NULL) && errno != EBUSY) {
		perror("scenarios: mounting the test image on /mnt");
		return 1;
	}
	if (copy_file(PROBE, FC "plain") || copy_file(PROBE, FC "x")) {
		perror("scenarios: copying the probe");
		return 1;
	}
	rc = setxattr_as(0, FC "x", v1->bytes, v1->len);
	check(rc == EINVAL, "stock: setxattr of a well-formed v1 value: EINVAL (%s)",
	      rc ? strerror(rc) : "ok");
	rc = getxattr(IMG "good_v1", FCAPS_XATTR_NAME, got, sizeof(got)) < 0 ? errno : 0;
	check(rc == EINVAL, "stock: getxattr of a v1 value written offline: EINVAL (%s)",
	      rc ? strerror(rc) : "ok");
	check(access("/proc/sys/kernel/fcaps", F_OK) != 0, "stock: no kernel.fcaps sysctls");
	for (size_t n = 0; n < sizeof(rows) / sizeof(rows[0]); n++)
		run_exec(&rows[n]);
	return finish();
}

static void put_hex(FILE *f, const char *file, const __u8 *v, __u32 len)
{
	fprintf(f, "%s hex:", file);
	for (__u32 i = 0; i < len; i++)
		fprintf(f, "%02x", v[i]);
	fprintf(f, "\n");
}

/* Load the BPF programs in enforce mode: on the patched kernel with the
 * policy scanned from the files' values, on stock from a policy file. */
static void setup_bpf(const char *record)
{
	char cmd[320];
	FILE *f;

	if (path == BPF_PATCHED) {
		if (set_switch("exec", 0) || set_switch("kill", 0)) {
			perror("scenarios: switching the kernel rules off");
			exit(1);
		}
		/* the nosuid bind shows the image's inodes: one scan covers both */
		snprintf(cmd, sizeof(cmd), "fcapsctl load --mode enforce --record %s "
			 "--scan /tmp/fc --scan /tmp/fcn --scan " IMG, record);
	} else {
		f = fopen(FC "policy", "w");
		for (size_t n = 0; f && n < NFIXTURES; n++) {
			const struct fixture *x = &fixtures[n];
			struct fcaps_sets sets = { x->e, x->p, x->i };
			__u8 buf[FCAPS_MAX_SIZE];

			if (x->tag)
				put_hex(f, x->path, buf, fcaps_encode(&sets, x->tag, buf));
		}
		/* copies of the image's files on tmpfs, through /mnt (FC) and
		 * through the nosuid bind (FCN), their values in the policy
		 * only: every kind, as the image holds them, the odd ones too */
		for (size_t n = 0; f && n < 2 * (FCAPS_TEST_NVALUES + FCAPS_TEST_NODD); n++) {
			size_t k = n % (FCAPS_TEST_NVALUES + FCAPS_TEST_NODD);
			const struct fcaps_test_value *v = k < FCAPS_TEST_NVALUES ?
				&fcaps_test_values[k] : &fcaps_test_odd_values[k - FCAPS_TEST_NVALUES];
			char img[96], file[128];

			snprintf(img, sizeof(img), "%s%s",
				 n < FCAPS_TEST_NVALUES + FCAPS_TEST_NODD ? IMG : IMGN, v->name);
			stock_path(img, file, sizeof(file));
			if (copy_file(PROBE, file) || chmod(file, v->mode ? v->mode : 0755)) {
				perror(file);
				exit(1);
			}
			put_hex(f, file, v->bytes, v->len);
		}
		if (!f || fclose(f)) {
			perror(FC "policy");
			exit(1);
		}
		snprintf(cmd, sizeof(cmd), "fcapsctl load --mode enforce --record %s "
			 "--policy " FC "policy", record);
	}
	fflush(stdout);
	check(system(cmd) == 0, "bpf: %s", cmd);
}

int main(int argc, char **argv)
{
	int bpf = argc > 1 && !strcmp(argv[1], "--bpf");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--stock"))
		return run_stock();
	if (bpf)
		path = access("/proc/sys/kernel/fcaps", F_OK) ? BPF_STOCK : BPF_PATCHED;
	setup_fixtures(path != BPF_STOCK);
	if (bpf) {
		setup_bpf("all");
		for (size_t n = 0; n < sizeof(exec_rows) / sizeof(exec_rows[0]); n++)
			run_exec(&exec_rows[n]);
		run_malformed_execs();
		for (size_t n = 0; n < sizeof(pair_rows) / sizeof(pair_rows[0]); n++)
			run_pair(&pair_rows[n], NULL, NULL);
		run_sigchld(0);
		run_sigchld(1);
		for (int off = 0; off <= 1; off++)
			skip("bpf signal: xinit%s: its X server must gain caps by exec, which "
			     "BPF cannot grant", off ? " with kill=0" : "");
		fflush(stdout);
		check(system("fcapsctl unload") == 0, "bpf: fcapsctl unload");
		/* the signal and scheduling rows again with nothing recorded: the
		 * outcomes must be the same (the records are not there to check) */
		reset_switches();
		bpf_tag = "bpf --record none ";
		no_records = 1;
		setup_bpf("none");
		for (size_t n = 0; n < sizeof(pair_rows) / sizeof(pair_rows[0]); n++)
			run_pair(&pair_rows[n], NULL, NULL);
		run_sigchld(0);
		run_sigchld(1);
		fflush(stdout);
		check(system("fcapsctl unload") == 0, "bpf --record none: fcapsctl unload");
		/* every row again recording only refusals: the same outcomes, a
		 * record of each refusal and of nothing else */
		reset_switches();
		bpf_tag = "bpf --record denied ";
		no_records = 0;
		denied_only = 1;
		setup_bpf("denied");
		for (size_t n = 0; n < sizeof(exec_rows) / sizeof(exec_rows[0]); n++)
			run_exec(&exec_rows[n]);
		for (size_t n = 0; n < sizeof(pair_rows) / sizeof(pair_rows[0]); n++)
			run_pair(&pair_rows[n], NULL, NULL);
		fflush(stdout);
		check(system("fcapsctl unload") == 0, "bpf --record denied: fcapsctl unload");
		reset_switches();
		return finish();
	}
	for (size_t n = 0; n < sizeof(exec_rows) / sizeof(exec_rows[0]); n++)
		run_exec(&exec_rows[n]);
	run_malformed_execs();
	for (size_t n = 0; n < sizeof(xattr_rows) / sizeof(xattr_rows[0]); n++)
		run_xattr(&xattr_rows[n]);
	for (size_t n = 0; n < sizeof(caps_rows) / sizeof(caps_rows[0]); n++)
		run_caps(&caps_rows[n]);
	for (size_t n = 0; n < sizeof(pair_rows) / sizeof(pair_rows[0]); n++)
		run_pair(&pair_rows[n], NULL, NULL);
	run_sigchld(0);
	run_sigchld(1);
	run_xinit(0);
	run_xinit(1);
	run_xattrs();
	run_switch_checks();
	run_trace();
	reset_switches();
	return finish();
}
