// SPDX-License-Identifier: GPL-2.0
/*
 * fcaps_sweep [MANIFEST]: the malformed-value sweep, guest side (patched
 * kernel). Mounts /dev/vda on /mnt if needed and reads MANIFEST (default
 * /mnt/manifest, written by tests/sweep/mkvalues): one line per file
 * DIR/v/NAME with its value and expected outcomes. Then:
 *  - reads every value back with getxattr;
 *  - execs every file as uid 0 and uid 1000 with the kernel's rules on
 *    (kernel.fcaps.exec=1): the exec's errno, or its AT_SECURE (the file is
 *    tests/sweep/tiny, which exits 10 + AT_SECURE);
 *  - the same with the kernel's rules off and BPF enforcing (fcapsctl load
 *    --mode enforce --scan DIR; if that fails, a FAIL, and the values are
 *    loaded as PATH hex:BYTES policy lines instead so that the rest is still
 *    measured), and each exec's BPF decision record's ret (fcapsctl
 *    decisions --json, matched by pid and inode).
 * Prints PASS/FAIL per group of results (check x kind of value), with the
 * first mismatches of a failed group, then "N passed, N failed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include "tap.h"

#define MAXV 64
#define NOT_RUN 1000		/* no result (yet) */

enum check { K0, K1000, B0, B1000, BREC, READBACK, NCHECK };
static const char *const check_names[NCHECK] = {
	"kernel rules, exec as uid 0", "kernel rules, exec as uid 1000",
	"BPF enforce, exec as uid 0", "BPF enforce, exec as uid 1000",
	"BPF enforce, decision record ret", "getxattr reads the value back",
};

struct value {
	char name[40], kind[8];
	unsigned char bytes[MAXV], rb[MAXV];
	int size, rb_len;		/* rb_len < 0: getxattr's -errno */
	int want[BREC + 1];		/* K0 K1000 B0 B1000 BREC */
	int got[BREC + 1];
	int pid[2];			/* the BPF phase's exec'ing pids */
	ino_t ino;
	char got_rb[2 * MAXV + 16];	/* what getxattr gave, if wrong */
};

static struct value *vals;
static int nvals, bpf_ran;
static char kinds[16][8];	/* in the manifest's order */
static int nkinds;
static char dir[4096];


static int unhex(const char *s, unsigned char *out, int max)
{
	int n = 0;
	unsigned int b;

	if (!strcmp(s, "-"))
		return 0;
	for (; s[0] && s[1] && n < max; s += 2)
		if (sscanf(s, "%2x", &b) == 1)
			out[n++] = b;
	return n;
}

static int load_manifest(const char *file)
{
	char line[512], hex[2 * MAXV + 2], rb[2 * MAXV + 8];
	FILE *f = fopen(file, "r");
	int cap = 0, k;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct value *v;

		if (line[0] == '#')
			continue;
		if (nvals == cap) {
			cap = cap ? 2 * cap : 1024;
			vals = realloc(vals, cap * sizeof(*vals));
			if (!vals)
				exit(1);
		}
		v = &vals[nvals];
		memset(v, 0, sizeof(*v));
		if (sscanf(line, "%39s %7s %d %129s %d %d %d %d %d %135s", v->name, v->kind,
			   &v->size, hex, &v->want[K0], &v->want[K1000], &v->want[B0],
			   &v->want[B1000], &v->want[BREC], rb) != 10 ||
		    unhex(hex, v->bytes, MAXV) != v->size) {
			fprintf(stderr, "sweep: bad manifest line: %s", line);
			fclose(f);
			return -1;
		}
		if (!strncmp(rb, "e:", 2))
			v->rb_len = -atoi(rb + 2);
		else
			v->rb_len = unhex(rb[2] ? rb + 2 : "-", v->rb, MAXV);
		for (int c = 0; c <= BREC; c++)
			v->got[c] = NOT_RUN;
		for (k = 0; k < nkinds && strcmp(kinds[k], v->kind); k++)
			;
		if (k == nkinds && nkinds < 16)
			strcpy(kinds[nkinds++], v->kind);
		nvals++;
	}
	fclose(f);
	return 0;
}

static void path_of(const struct value *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s/v/%s", dir, v->name);
}

/*
 * Exec @path as @uid in a child: -errno if the exec fails, 0 or 1 (its
 * AT_SECURE) if tiny ran, NOT_RUN + something for anything else.
 */
static int run(const char *path, uid_t uid, int *pidp)
{
	int fds[2], err = 0, status;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) || (pid = fork()) < 0) {
		perror("sweep: pipe/fork");
		exit(1);
	}
	if (!pid) {
		char *argv[] = { (char *)path, NULL }, *envp[] = { NULL };

		close(fds[0]);
		if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			err = 1000 + errno;
		else
			execve(path, argv, envp);
		err = err ? err : errno;
		if (write(fds[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], &err, sizeof(err));
	close(fds[0]);
	waitpid(pid, &status, 0);
	*pidp = pid;
	if (n == sizeof(err))
		return err >= 1000 ? NOT_RUN + err : -err;
	if (WIFEXITED(status) && (WEXITSTATUS(status) == 10 || WEXITSTATUS(status) == 11))
		return WEXITSTATUS(status) - 10;
	return NOT_RUN + 1 + status;
}

/* Exec values [from, to) as uid 0 and 1000: results in got[first, first + 1] */
static void exec_all(int first, int from, int to)
{
	char path[4200];
	int pid;

	for (int i = from; i < to; i++) {
		path_of(&vals[i], path, sizeof(path));
		vals[i].got[first] = run(path, 0, &pid);
		vals[i].pid[0] = pid;
		vals[i].got[first + 1] = run(path, 1000, &pid);
		vals[i].pid[1] = pid;
	}
}

static void readback_all(void)
{
	char path[4200];

	for (int i = 0; i < nvals; i++) {
		struct value *v = &vals[i];
		unsigned char buf[256];
		ssize_t n;
		struct stat st;
		int ok;

		path_of(v, path, sizeof(path));
		if (!stat(path, &st))
			v->ino = st.st_ino;
		n = getxattr(path, "security.capability", buf, sizeof(buf));
		ok = n < 0 ? v->rb_len == -errno :
		     n == v->rb_len && !memcmp(buf, v->rb, n);
		if (ok)
			continue;
		if (n < 0) {
			snprintf(v->got_rb, sizeof(v->got_rb), "e:%d", errno);
		} else {
			int o = snprintf(v->got_rb, sizeof(v->got_rb), "x:");

			for (ssize_t b = 0; b < n && b < MAXV; b++)
				o += snprintf(v->got_rb + o, sizeof(v->got_rb) - o, "%02x", buf[b]);
		}
	}
}

static int set_switch(const char *name, int value)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/kernel/fcaps/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%d\n", value);
	return fclose(f);
}

/* BPF decision records: exec records of the BPF map, by pid and inode. */
struct rec { int pid, ret; unsigned long long ino, seq; };
static struct rec *recs;
static int nrecs, caprecs;

static int collect_decisions(void)
{
	FILE *p = popen("fcapsctl decisions --json --clear", "r");
	char line[2048];

	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		struct rec r;
		char *s;

		if (!strstr(line, "\"map\":\"decisions\"") || !strstr(line, "\"hook\":\"exec\""))
			continue;
		if (!(s = strstr(line, "\"pid\":")) || sscanf(s, "\"pid\":%d", &r.pid) != 1 ||
		    !(s = strstr(line, "\"ret\":")) || sscanf(s, "\"ret\":%d", &r.ret) != 1 ||
		    !(s = strstr(line, "\"ino\":")) || sscanf(s, "\"ino\":%llu", &r.ino) != 1 ||
		    !(s = strstr(line, "\"seq\":")) || sscanf(s, "\"seq\":%llu", &r.seq) != 1)
			continue;
		if (nrecs == caprecs) {
			caprecs = caprecs ? 2 * caprecs : 4096;
			recs = realloc(recs, caprecs * sizeof(*recs));
			if (!recs)
				exit(1);
		}
		recs[nrecs++] = r;
	}
	return pclose(p) ? -1 : 0;
}

static int by_pid(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->pid != y->pid ? (x->pid > y->pid) - (x->pid < y->pid) :
	       (x->seq > y->seq) - (x->seq < y->seq);
}

/* The ret of the last record of @pid exec'ing @ino (records sorted by
 * pid, then seq); NOT_RUN if there is none. */
static int record_ret(int pid, ino_t ino)
{
	int lo = 0, hi = nrecs, ret = NOT_RUN;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (recs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo; i < nrecs && recs[i].pid == pid; i++)
		if (recs[i].ino == ino)
			ret = recs[i].ret;
	return ret;
}

/* Run @cmd, its output kept in /tmp/sweep.out: print at most its first 5
 * and last 3 lines (a scan can complain about thousands of files). */
static int sh(const char *cmd)
{
	char full[4400], line[1024];
	int rc, n = 0, total = 0;
	FILE *f;

	snprintf(full, sizeof(full), "%s >/tmp/sweep.out 2>&1", cmd);
	rc = system(full);
	f = fopen("/tmp/sweep.out", "r");
	while (f && fgets(line, sizeof(line), f))
		total++;
	if (f)
		rewind(f);
	while (f && fgets(line, sizeof(line), f)) {
		if (n < 5 || n >= total - 3)
			printf("  | %s", line);
		else if (n == 5)
			printf("  | ... (%d lines)\n", total - 8);
		n++;
	}
	if (f)
		fclose(f);
	return rc;
}

static void bpf_phase(void)
{
	char cmd[4300];
	FILE *f;
	int chunk = 1000, rc;

	if (set_switch("exec", 0) || set_switch("kill", 0)) {
		check(0, "switching the kernel's rules off for BPF");
		goto out;
	}
	snprintf(cmd, sizeof(cmd), "fcapsctl load --mode enforce --scan %s", dir);
	rc = sh(cmd);
	check(rc == 0, "%s", cmd);
	if (rc) {
		/* go on with the values as a policy file, to measure the rest */
		f = fopen("/tmp/sweep.policy", "w");
		for (int i = 0; f && i < nvals; i++) {
			fprintf(f, "%s/v/%s hex:", dir, vals[i].name);
			for (int b = 0; b < vals[i].size; b++)
				fprintf(f, "%02x", vals[i].bytes[b]);
			fprintf(f, "\n");
		}
		if (!f || fclose(f))
			goto out;
		printf("sweep: the scan refused the image; going on with every value as a policy line (PATH hex:BYTES) to measure the rest\n");
		rc = sh("fcapsctl load --mode enforce --policy /tmp/sweep.policy");
		check(rc == 0, "fcapsctl load --mode enforce --policy /tmp/sweep.policy");
		if (rc)
			goto out;
	}
	bpf_ran = 1;
	/* in chunks, reading and clearing the records in between */
	for (int from = 0; from < nvals; from += chunk) {
		exec_all(B0, from, from + chunk < nvals ? from + chunk : nvals);
		if (collect_decisions()) {
			check(0, "fcapsctl decisions --json --clear");
			break;
		}
	}
	qsort(recs, nrecs, sizeof(*recs), by_pid);
	for (int i = 0; i < nvals; i++) {
		vals[i].got[BREC] = record_ret(vals[i].pid[0], vals[i].ino);
		/* the uid 1000 exec must have a record that agrees too */
		if (vals[i].got[BREC] == vals[i].want[BREC])
			vals[i].got[BREC] = record_ret(vals[i].pid[1], vals[i].ino);
	}
	check(sh("fcapsctl unload") == 0, "fcapsctl unload");
out:
	if (set_switch("exec", 1) || set_switch("kill", 1))
		check(0, "switching the kernel's rules back on");
}

/* One PASS/FAIL per check and kind, listing the first mismatches. */
static void report(void)
{
	for (int c = 0; c < NCHECK; c++) {
		if (c >= B0 && c <= BREC && !bpf_ran) {
			printf("SKIP: %s: BPF did not load (counted above)\n", check_names[c]);
			continue;
		}
		for (int k = 0; k < nkinds; k++) {
			int n = 0, bad = 0, shown = 0;

			for (int i = 0; i < nvals; i++) {
				struct value *v = &vals[i];
				int ok = c == READBACK ? !v->got_rb[0] : v->got[c] == v->want[c];

				if (strcmp(v->kind, kinds[k]))
					continue;
				n++;
				if (ok)
					continue;
				bad++;
				if (shown++ < 5) {
					if (c == READBACK)
						printf("  %s: getxattr gave %s\n", v->name, v->got_rb);
					else if (v->got[c] == NOT_RUN)
						printf("  %s: no result (want %d)\n", v->name, v->want[c]);
					else
						printf("  %s: got %d, want %d\n", v->name, v->got[c],
						       v->want[c]);
				}
			}
			if (n)
				check(!bad, "%s, %s: %d of %d values as expected", check_names[c],
				      kinds[k], n - bad, n);
		}
	}
}

int main(int argc, char **argv)
{
	const char *manifest = argc > 1 ? argv[1] : "/mnt/manifest";
	char copy[4096];
	time_t t0 = time(NULL), t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(copy, sizeof(copy), "%s", manifest);
	snprintf(dir, sizeof(dir), "%s", dirname(copy));
	if (access(manifest, R_OK) && mount("/dev/vda", "/mnt", "ext4", 0, NULL) &&
	    errno != EBUSY)
		perror("sweep: mounting /dev/vda on /mnt");
	if (load_manifest(manifest) || !nvals) {
		check(0, "reading the manifest %s", manifest);
		return finish();
	}
	printf("sweep: %d values, each exec'd as uid 0 and 1000 under the kernel's "
	       "rules and under BPF (%d execs)\n", nvals, 4 * nvals);
	if (access("/proc/sys/kernel/fcaps/exec", W_OK)) {
		check(0, "patched kernel: /proc/sys/kernel/fcaps/exec");
		return finish();
	}
	readback_all();
	if (set_switch("exec", 1) || set_switch("kill", 1) || set_switch("nosuid_ignore", 0))
		check(0, "setting the kernel's switches");
	exec_all(K0, 0, nvals);
	t = time(NULL);
	printf("sweep: kernel rules: %d execs in %lds\n", 2 * nvals, (long)(t - t0));
	bpf_phase();
	if (bpf_ran)
		printf("sweep: BPF: %d execs in %lds\n", 2 * nvals, (long)(time(NULL) - t));
	report();
	printf("sweep: %d values tried in %lds\n", nvals, (long)(time(NULL) - t0));
	return finish();
}
