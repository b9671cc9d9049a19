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
 * processes get their caps from ambient sets instead (see actor()) and
 * exec rows compare the predicted credentials from the decision map.
 */
static enum { KERNEL, BPF_PATCHED, BPF_STOCK } path = KERNEL;


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


/* BPF: the outcome the workload sees, then the credentials BPF predicts. */
static void check_bpf_exec(const struct exec_row *r, const char *line)
{
	struct fcaps_decision d = {};
	int ok, found;

	if (r->want_errno)
		ok = field(line, "exec_errno") == (unsigned long long)r->want_errno;
	else
		ok = !has_field(line, "exec_errno") &&
		     field(line, "secure") == (unsigned long long)r->secure;
	check(ok, "bpf exec: %s: errno %d%s", r->name, r->want_errno,
	      r->want_errno ? "" : ", AT_SECURE as predicted");
	if (!ok)
		printf("  got  %s\n", line);
	found = !find_decision(FCAPS_HOOK_EXEC, field(line, "pid"), &d);
	ok = found && d.ret == -r->want_errno;
	if (ok && !r->want_errno)
		ok = d.euid == r->want_euid && d.pe == r->e && d.pp == r->p &&
		     d.pi == r->i && d.pa == r->a && d.secureexec == (__u32)r->secure;
	check(ok, "bpf exec: %s: decision record", r->name);
	if (!ok && found)
		printf("  want ret=%d euid=%u pE=%#llx pP=%#llx pI=%#llx pA=%#llx secure=%d\n"
		       "  got  ret=%d euid=%u pE=%#llx pP=%#llx pI=%#llx pA=%#llx secure=%u\n",
		       -r->want_errno, r->want_euid, (unsigned long long)r->e,
		       (unsigned long long)r->p, (unsigned long long)r->i,
		       (unsigned long long)r->a, r->secure, d.ret, d.euid,
		       (unsigned long long)d.pe, (unsigned long long)d.pp,
		       (unsigned long long)d.pi, (unsigned long long)d.pa, d.secureexec);
	else if (!ok)
		printf("  no decision record for pid %llu (%s)\n", field(line, "pid"), line);
}

/* On the stock kernel the image's values fail every exec (6.1 cannot read
 * them), so BPF_STOCK runs copies on tmpfs that carry them only in the
 * policy file. */
static const char *exec_path(const char *file, char *buf, size_t len)
{
	if (path != BPF_STOCK || strncmp(file, IMG, strlen(IMG)))
		return file;
	snprintf(buf, len, FC "img_%s", file + strlen(IMG));
	return buf;
}

static void run_exec(const struct exec_row *r)
{
	char buf[128];
	char *argv[] = { (char *)exec_path(r->file, buf, sizeof(buf)), "status", NULL };
	const char *line;
	pid_t pid;
	int ok;

	apply(r->sw);
	line = run_to_end(&r->c, argv, &pid);
	if (path != KERNEL) {
		check_bpf_exec(r, line);
		return;
	}
	if (r->want_errno)
		ok = field(line, "exec_errno") == (unsigned long long)r->want_errno;
	else
		ok = !has_field(line, "exec_errno") &&
		     field(line, "euid") == r->want_euid &&
		     field(line, "Eff") == r->e && field(line, "Prm") == r->p &&
		     field(line, "Inh") == r->i && field(line, "Amb") == r->a &&
		     field(line, "secure") == (unsigned long long)r->secure;
	check(ok, "exec: %s", r->name);
	if (!ok) {
		if (r->want_errno)
			printf("  want exec_errno=%d\n", r->want_errno);
		else
			printf("  want euid=%u Eff=%#llx Prm=%#llx Inh=%#llx Amb=%#llx secure=%d\n",
			       r->want_euid, (unsigned long long)r->e,
			       (unsigned long long)r->p, (unsigned long long)r->i,
			       (unsigned long long)r->a, r->secure);
		printf("  got  %s\n", line);
	}
}

/* Every malformed value on the image fails the exec with EPERM, for root
 * and for uid 1000 alike. */
static void run_malformed_execs(void)
{
	for (size_t n = 0; n < FCAPS_TEST_NVALUES; n++) {
		const struct fcaps_test_value *v = &fcaps_test_values[n];
		char path[64], name[96];

		if (strncmp(v->name, "m_", 2))
			continue;
		snprintf(path, sizeof(path), IMG "%s", v->name);
		for (uid_t uid = 0; uid <= U; uid += U) {
			struct exec_row r = { name, path, { uid }, {}, EPERM };

			snprintf(name, sizeof(name), "ext4 %s, uid %u: EPERM", v->name, uid);
			run_exec(&r);
		}
	}
}



/*
 * Who runs @file as @uid. In BPF mode nothing grants a file's caps, so a
 * capped fixture becomes the plain probe run with the fixture's permitted
 * set as its ambient set (every pair-row fixture has fE = fP), and root
 * keeps only that set through SECBIT_NOROOT: the same live credentials.
 */
static const char *actor(const char *file, uid_t uid, struct creds *c)
{
	const struct fixture *f = fixture(file);

	*c = (struct creds){ uid };
	if (path == KERNEL || !f || !f->tag)
		return file;
	c->pa = f->p;
	c->noroot = uid == 0;
	return FC "plain";
}

/* The BPF record of the event: its decision and both permitted sets. */
static void check_bpf_pair(const struct pair_row *r, pid_t sp, pid_t tp)
{
	__u32 hook = !r->op ? FCAPS_HOOK_KILL : !strcmp(r->op, "nice") ? FCAPS_HOOK_SETNICE :
		     !strcmp(r->op, "sched") ? FCAPS_HOOK_SETSCHEDULER : FCAPS_HOOK_SETIOPRIO;
	const struct fixture *t = fixture(r->target), *s = fixture(r->sender);
	__u64 tpp = t && t->tag ? t->p : r->tuid ? 0 : FULL;
	__u64 spp = s && s->tag ? s->p : r->suid ? 0 : FULL;
	struct fcaps_decision d = {};
	int found = !find_decision(hook, sp, &d), ok;

	if (r->uid_check)
		ok = !found;
	else
		ok = found && d.ret == -r->want_errno && d.target == (__u32)tp &&
		     d.pp == spp && d.target_pp == tpp;
	check(ok, "bpf %s: %s: decision record", r->op ? "sched" : "signal", r->name);
	if (!ok && found)
		printf("  want ret=%d pP=%#llx target_pP=%#llx%s\n  got  ret=%d pP=%#llx "
		       "target_pP=%#llx\n", -r->want_errno, (unsigned long long)spp,
		       (unsigned long long)tpp, r->uid_check ? " (no record)" : "", d.ret,
		       (unsigned long long)d.pp, (unsigned long long)d.target_pp);
	else if (!ok)
		printf("  no record for sender pid %d\n", sp);
}

static void run_pair(const struct pair_row *r, pid_t *sender_pid, pid_t *target_pid)
{
	struct creds tc, sc;
	const char *target = actor(r->target, r->tuid, &tc);
	const char *sender = actor(r->sender, r->suid, &sc);
	const char *line;
	pid_t tp, sp;
	int ok;

	apply(r->sw);
	line = run_pair_procs(&tc, target, &sc, sender, r->op, r->sig, &tp, &sp);
	if (target_pid) {
		*target_pid = tp;
		*sender_pid = sp;
	}
	ok = has_field(line, r->op ? "sched" : "kill") &&
	     field(line, r->op ? "sched" : "kill") == (r->want_errno ? ~0ULL : 0) &&
	     (!r->want_errno || field(line, "errno") == (unsigned long long)r->want_errno);
	check(ok, "%s%s: %s", path == KERNEL ? "" : "bpf ", r->op ? "sched" : "signal", r->name);
	if (!ok)
		printf("  want %s, got: %s\n", r->want_errno ? "EPERM" : "success", line);
	if (path != KERNEL)
		check_bpf_pair(r, sp, tp);
}

/* A capped process still gets SIGCHLD from a child that dropped every cap
 * (kernel-originated), while that child's own kill() is refused. */
static void run_sigchld(int kill_off)
{
	struct creds c;
	char *argv[] = { (char *)actor(FC "v1_raw_ep", U, &c), "sigchld", NULL };
	const char *line;
	pid_t pid;
	int ok;

	apply((struct switches){ .kill_off = kill_off });
	line = run_to_end(&c, argv, &pid);
	ok = field(line, "sigchld") == 1 &&
	     field(line, "child_kill_errno") == (kill_off ? 0 : EPERM);
	check(ok, "%ssignal: kernel SIGCHLD reaches a capped parent; the child's "
	      "kill() %s", path == KERNEL ? "" : "bpf ",
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

static void run_xattrs(void)
{
	for (size_t n = 0; n < FCAPS_TEST_NVALUES; n++) {
		const struct fcaps_test_value *v = &fcaps_test_values[n];
		int good = strncmp(v->name, "m_", 2) != 0;
		char path[64], img[64];
		__u8 got[64];
		ssize_t len;
		int rc;

		/* getxattr returns what debugfs wrote, malformed or not */
		snprintf(img, sizeof(img), IMG "%s", v->name);
		len = getxattr(img, FCAPS_XATTR_NAME, got, sizeof(got));
		check(len == (ssize_t)v->len && !memcmp(got, v->bytes, v->len),
		      "getxattr: %s reads back raw (%zd of %u bytes)", v->name, len, v->len);

		snprintf(path, sizeof(path), FC "x_%s", v->name);
		close(open(path, O_CREAT | O_WRONLY, 0755));
		if (chown(path, U, U))
			perror(path);
		rc = setxattr_as(0, path, v->bytes, v->len);
		check(rc == (good ? 0 : EINVAL), "setxattr: uid 0 writes %s: %s (got %s)",
		      v->name, good ? "ok" : "EINVAL", rc ? strerror(rc) : "ok");
		if (good) {
			len = getxattr(path, FCAPS_XATTR_NAME, got, sizeof(got));
			check(len == (ssize_t)v->len && !memcmp(got, v->bytes, v->len),
			      "getxattr: %s written on tmpfs reads back unchanged", v->name);
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
	return buf[0] ? atoi(buf) : -1;
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

static char *trace_line(const char *trace, const char *event, pid_t pid)
{
	static char line[512];
	char key[64];
	const char *s, *e;

	snprintf(key, sizeof(key), "%s: pid=%d ", event, pid);
	s = strstr(trace, key);
	if (!s)
		return NULL;
	e = strchr(s, '\n');
	snprintf(line, sizeof(line), "%.*s", e ? (int)(e - s) : (int)strlen(s), s);
	return line;
}

static void run_trace(void)
{
	static char trace[1 << 16];
	char *argv[] = { FC "v1_sub", "status", NULL }, want[128], *l;
	const struct pair_row kill_row = { "traced kill", FC "v1_raw_ep", U,
					   FC "plain", U, NULL, SIGTERM, {}, EPERM };
	struct creds c = { U };
	pid_t pid, sp = 0, tp = 0;
	struct stat st;
	ssize_t n;
	int fd, ok;

	reset_switches();
	if (write_file(TRACING "events/fcaps/enable", "1") ||
	    write_file(TRACING "trace", "")) {
		check(0, "trace: enabling events/fcaps in tracefs");
		return;
	}
	run_to_end(&c, argv, &pid);
	run_pair(&kill_row, &sp, &tp);
	write_file(TRACING "events/fcaps/enable", "0");
	fd = open(TRACING "trace", O_RDONLY);
	n = fd < 0 ? -1 : read(fd, trace, sizeof(trace) - 1);
	trace[n > 0 ? n : 0] = 0;
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

	l = trace_line(trace, "fcaps_kill", sp);
	ok = l && field(l, "target") == (unsigned long long)tp &&
	     field(l, "sig") == SIGTERM && field(l, "pP") == 0 &&
	     field(l, "target_pP") == RAW && field(l, "cred") == 0 &&
	     field(l, "ret") == (unsigned long long)-EPERM;
	check(ok, "trace: fcaps_kill of a denied SIGTERM, field by field");
	if (!ok)
		printf("  want target=%d sig=15 pP=0 target_pP=0x2000 cred=0 ret=-1\n"
		       "  got  %s\n", tp, l ? l : "(none)");
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
static void setup_bpf(void)
{
	char cmd[256];
	FILE *f;

	if (path == BPF_PATCHED) {
		if (set_switch("exec", 0) || set_switch("kill", 0)) {
			perror("scenarios: switching the kernel rules off");
			exit(1);
		}
		snprintf(cmd, sizeof(cmd), "fcapsctl load --mode enforce "
			 "--scan /tmp/fc --scan /tmp/fcn --scan " IMG);
	} else {
		f = fopen(FC "policy", "w");
		for (size_t n = 0; f && n < sizeof(fixtures) / sizeof(fixtures[0]); n++) {
			const struct fixture *x = &fixtures[n];
			struct fcaps_sets sets = { x->e, x->p, x->i };
			__u8 buf[FCAPS_MAX_SIZE];

			if (x->tag)
				put_hex(f, x->path, buf, fcaps_encode(&sets, x->tag, buf));
		}
		for (size_t n = 0; f && n < FCAPS_TEST_NVALUES; n++) {
			char file[96];

			snprintf(file, sizeof(file), FC "img_%s", fcaps_test_values[n].name);
			if (copy_file(PROBE, file)) {
				perror(file);
				exit(1);
			}
			put_hex(f, file, fcaps_test_values[n].bytes, fcaps_test_values[n].len);
		}
		if (!f || fclose(f)) {
			perror(FC "policy");
			exit(1);
		}
		snprintf(cmd, sizeof(cmd), "fcapsctl load --mode enforce --policy " FC "policy");
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
		setup_bpf();
		for (size_t n = 0; n < sizeof(exec_rows) / sizeof(exec_rows[0]); n++)
			run_exec(&exec_rows[n]);
		run_malformed_execs();
		for (size_t n = 0; n < sizeof(pair_rows) / sizeof(pair_rows[0]); n++)
			run_pair(&pair_rows[n], NULL, NULL);
		run_sigchld(0);
		run_sigchld(1);
		/* xinit needs a child that gains caps by exec: BPF cannot grant. */
		fflush(stdout);
		check(system("fcapsctl unload") == 0, "bpf: fcapsctl unload");
		reset_switches();
		return finish();
	}
	for (size_t n = 0; n < sizeof(exec_rows) / sizeof(exec_rows[0]); n++)
		run_exec(&exec_rows[n]);
	run_malformed_execs();
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
