// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for the loader's policy code: the s_dev encoding, the
 * policy file parser's verdicts, line numbers and all-or-nothing loading,
 * a scan by a root without the capabilities that open any file, and the
 * config's stores, which leave BPF's count of ceilings alone. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "config.h"
#include "filekey.h"
#include "policyfile.h"
#include "scan.h"
#include "tap.h"


/* Write @text to a temporary policy file, parse it into @p, and return the
 * parser's result with its stderr in @err. */
static int parse(const char *text, struct policy *p, char *err, size_t errlen)
{
	char file[] = "/tmp/fcaps-policy-XXXXXX", errfile[] = "/tmp/fcaps-err-XXXXXX";
	int fd = mkstemp(file), efd = mkstemp(errfile), saved = dup(2), rc;
	ssize_t n;

	if (fd < 0 || efd < 0 || write(fd, text, strlen(text)) < 0)
		return -2;
	close(fd);
	fflush(stderr);
	dup2(efd, 2);
	rc = policy_parse_file(file, p);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(efd, err, errlen - 1, 0);
	err[n > 0 ? n : 0] = 0;
	close(efd);
	unlink(file);
	unlink(errfile);
	return rc;
}

/* What scan_as_restricted_root() found wrong, one bit a check */
enum { SCAN_FAILED = 1, SCAN_COUNT = 2, SCAN_VALUES = 4, SCAN_SETUP = 8 };

/*
 * In a child: files the scan cannot open for reading (mode 000, and one
 * another user owns, which O_NOATIME refuses), scanned after the child
 * drops CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER. Each value
 * must still be read (by O_PATH), and none counted as unreadable.
 * Root writes a v2 value on each (a stock kernel takes only v2 and v3);
 * another user cannot, and expects no entries and no failure.
 */
static int scan_as_restricted_root(void)
{
	static const char *names[] = { "mine", "closed", "theirs" };
	static const unsigned char v2[20] = { 0x01, 0, 0, 0x02, 0, 0x20 };
	char dir[] = "/dev/shm/fcaps-scan-XXXXXX", path[3][64];
	const cap_value_t drop[] = { CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER };
	struct policy p = {};
	int bad = 0, values = geteuid() == 0, rc;
	size_t i, j;
	cap_t caps;

	if (!mkdtemp(dir) && (strcpy(dir, "/tmp/fcaps-scan-XXXXXX"), !mkdtemp(dir)))
		return SCAN_SETUP;
	for (i = 0; i < 3; i++) {
		int fd;

		snprintf(path[i], sizeof(path[i]), "%s/%s", dir, names[i]);
		fd = open(path[i], O_CREAT | O_WRONLY, i == 1 ? 0 : 0644);
		if (fd < 0)
			return SCAN_SETUP;
		close(fd);
		/* chown first: it removes the value */
		if (values && i == 2 && chown(path[i], 1, 1))
			return SCAN_SETUP;
		if (values && setxattr(path[i], FCAPS_XATTR_NAME, v2, sizeof(v2), 0))
			values = 0;
	}
	caps = cap_get_proc();
	if (!caps || cap_set_flag(caps, CAP_EFFECTIVE, 3, drop, CAP_CLEAR) ||
	    cap_set_proc(caps))
		return SCAN_SETUP;
	cap_free(caps);
	rc = policy_scan_dir(dir, &p);
	if (rc)
		bad |= SCAN_FAILED;
	if (p.n != (values ? 3 : 0))
		bad |= SCAN_COUNT;
	for (i = 0; i < p.n; i++) {
		struct stat st;

		for (j = 0; j < 3 && strcmp(p.v[i].path, path[j]); j++)
			;
		if (j == 3 || stat(path[j], &st) || p.v[i].key.ino != st.st_ino ||
		    p.v[i].value.len != sizeof(v2) || memcmp(p.v[i].value.value, v2, sizeof(v2)))
			bad |= SCAN_VALUES;
	}
	if (rc || p.n != (values ? 3 : 0))
		printf("  scan: rc %d, %zu entries, values written: %d\n", rc, p.n, values);
	policy_free(&p);
	for (i = 0; i < 3; i++)
		unlink(path[i]);
	rmdir(dir);
	return bad;
}

/*
 * fcaps_config_store() on a memfd standing in for the config map: every
 * field the loader owns is written, and the count of live ceilings, which
 * BPF's atomics change at any moment, is not (a whole-value write would
 * put back the count the loader read before it).
 */
static void test_config_store(void)
{
	struct fcaps_config want = { .mode = FCAPS_MODE_ENFORCE, .armed = 1, .ceilings_live = 0,
				     .kill = 1, .exec = 1, .nosuid_ignore = 1,
				     .record = FCAPS_RECORD_NONE, .policy_gen = 7, .next_gen = 8,
				     .kernel_records = 1 };
	long page = sysconf(_SC_PAGESIZE);
	int fd = memfd_create("fcaps-config", 0);
	struct fcaps_config *m;

	if (fd < 0 || ftruncate(fd, page) ||
	    (m = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		check(0, "config store: a memfd to stand in for the config map");
		return;
	}
	m->ceilings_live = 3;	/* BPF's, meanwhile */
	check(fcaps_config_store(fd, &want) == 0, "config store: written through the mapping");
	check(m->ceilings_live == 3, "config store: BPF's count of live ceilings left as it was");
	want.ceilings_live = 3;
	check(!memcmp(m, &want, sizeof(want)), "config store: every other field written");
	munmap(m, page);
	close(fd);
}

int main(void)
{
	struct policy p = {};
	struct stat st;
	char err[1024];
	int rc;

	/* MKDEV: 12-bit major above a 20-bit minor */
	check(kernel_dev(makedev(254, 0)) == 254U << 20, "virtio-blk 254:0 -> s_dev 0x0fe00000");
	check(kernel_dev(makedev(0, 17)) == 17, "tmpfs 0:17 -> s_dev 17");
	check(kernel_dev(makedev(8, 300)) == ((8U << 20) | 300), "8:300 (minor above 255)");
	check(kernel_dev(makedev(259, 1048575)) == ((259U << 20) | 1048575),
	      "259:1048575 (largest minor)");
	check(kdev_major(kernel_dev(makedev(254, 3))) == 254 &&
	      kdev_minor(kernel_dev(makedev(254, 3))) == 3, "s_dev back to 254:3");

	stat("/etc/passwd", &st);
	rc = parse("# comment\n\n/etc/passwd cap_net_raw+ep cap_kill+i\n", &p, err, sizeof(err));
	check(rc == 0 && p.n == 1 && p.v[0].key.dev == kernel_dev(st.st_dev) &&
	      p.v[0].key.ino == st.st_ino, "a good line keys the file by (s_dev, ino)");
	check(p.n == 1 && p.v[0].value.len == FCAPS_V1_SIZE &&
	      fcaps_le32(p.v[0].value.value) == FCAPS_V1_TAG &&
	      fcaps_le32(p.v[0].value.value + 8) == 1U << 13 &&
	      fcaps_le32(p.v[0].value.value + 12) == 1U << 5, "... as v1 with fP=raw, fI=kill");
	policy_free(&p);

	rc = parse("/etc/passwd hex:2205082000200000002000000000000000000000000000000000000000\n",
		   &p, err, sizeof(err));
	check(rc == 0 && p.n == 1 && p.v[0].value.len == 29,
	      "hex keeps a 29-byte malformed value's size");
	policy_free(&p);

	static const struct { const char *line, *why; } bad[] = {
		{ "/etc/passwd", "want 'PATH CAPTEXT'" },
		{ "/nonexistent cap_kill+ep", "No such file or directory" },
		{ "/etc/passwd cap_bogus+ep", "is not capability text" },
		{ "/etc/passwd hex:3003981", "is not hex:BYTES" },
		{ "/etc/passwd hex:00000000000000zz", "is not hex:BYTES" },
		{ "/etc/passwd hex:00 extra", "is not hex:BYTES" },
		{ "/etc/passwd v1 cap_bpf+ep", "v1 names capabilities 0-31 only" },
		{ "/etc/passwd 41+p", "above CAP_LAST_CAP (40)" },
		{ "/etc/passwd ", "empty capability text" },
		{ "/etc/passwd v3 ", "empty capability text" },
		{ "/etc/passwd hex:-1", "is not hex:BYTES" },
		{ "/etc/passwd hex:+1", "is not hex:BYTES" },
		{ "/etc/passwd v1 cap_mac_override+p", "v1 names capabilities 0-31 only" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[256], what[320];

		snprintf(text, sizeof(text), "# ok\n/etc/passwd cap_kill+ep\n%s\n", bad[i].line);
		rc = parse(text, &p, err, sizeof(err));
		snprintf(what, sizeof(what), "'%s' rejected at line 3 (%s), nothing kept",
			 bad[i].line, bad[i].why);
		check(rc == -1 && p.n == 0 && strstr(err, ":3: ") && strstr(err, bad[i].why), what);
		if (rc != -1 || !strstr(err, bad[i].why))
			printf("  stderr: %s", err);
		policy_free(&p);
	}
	/* input that is not a policy file at all: refused, nothing kept */
	{
		static char text[6000];
		size_t n = strlen("# ok\n/etc/passwd cap_kill+ep\n");

		memcpy(text, "# ok\n/etc/passwd cap_kill+ep\n", n);
		memset(text + n, 'x', 5000);
		strcpy(text + n + 5000, " cap_kill+ep\n");
		rc = parse(text, &p, err, sizeof(err));
		check(rc == -1 && p.n == 0 && strstr(err, ":3: line longer than 4096 bytes"),
		      "a line over 4 KiB is refused at its line, nothing kept");
		policy_free(&p);
		rc = parse("/etc/passwd cap_kill+ep\n\x7f" "ELF\x01\n", &p, err, sizeof(err));
		check(rc == -1 && p.n == 0 && strstr(err, ":2: want 'PATH CAPTEXT'"),
		      "a binary line is refused at its line, nothing kept");
		policy_free(&p);
		rc = policy_parse_file("/tmp", &p);
		check(rc == -1 && p.n == 0, "a directory is not a policy file");
		rc = policy_parse_file("/nonexistent/policy", &p);
		check(rc == -1 && p.n == 0, "a missing file is refused");
		rc = parse("/etc/passwd cap_kill+ep\n/etc/passwd cap_chown+ep\n", &p, err, sizeof(err));
		check(rc == 0 && p.n == 1 && fcaps_le32(p.v[0].value.value + 8) == 1U << 0,
		      "two lines for one file: the last wins");
		policy_free(&p);
		/* the highest capability 6.1 has, and the lowest one v1 cannot hold */
		rc = parse("/etc/passwd 40+p\n", &p, err, sizeof(err));
		check(rc == 0 && p.n == 1 && fcaps_le32(p.v[0].value.value) == FCAPS_V3_TAG &&
		      fcaps_le32(p.v[0].value.value + 20) == 1U << 8 &&
		      fcaps_le32(p.v[0].value.value + 8) == 0,
		      "capability 40 (CAP_LAST_CAP) is accepted, as v3");
		policy_free(&p);
		rc = parse("/etc/passwd cap_mac_override+p\n", &p, err, sizeof(err));
		check(rc == 0 && p.n == 1 && fcaps_le32(p.v[0].value.value) == FCAPS_V3_TAG &&
		      fcaps_le32(p.v[0].value.value + 20) == 1,
		      "capability 32 alone picks v3");
		policy_free(&p);
		rc = parse("/etc/passwd 41+p\n", &p, err, sizeof(err));
		check(rc == -1 && p.n == 0, "capability 41 (above CAP_LAST_CAP) is refused");
		policy_free(&p);
	}
	{
		pid_t pid = fork();
		int status = -1;

		if (pid == 0)
			_exit(scan_as_restricted_root());
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			status = SCAN_SETUP << 8;
		rc = WEXITSTATUS(status);
		check(!(rc & SCAN_SETUP), "a scan's fixture: files, values, capabilities dropped");
		check(!(rc & (SCAN_SETUP | SCAN_FAILED)),
		      "a scan without DAC or FOWNER capabilities reads what it cannot open (O_PATH)");
		check(!(rc & (SCAN_SETUP | SCAN_COUNT | SCAN_VALUES)),
		      "... one entry a file, each with its key and its value");
	}
	test_config_store();
	return finish();
}
