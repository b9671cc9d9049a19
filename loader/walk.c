// SPDX-License-Identifier: GPL-2.0
/*
 * A walk of a directory tree (walk.h) that an unprivileged user who owns
 * part of it cannot turn against the loader.
 *
 * Every step is openat() from the directory above, never a path: no
 * length limit, and no component can be swapped for a link between the
 * check and the use (O_NOFOLLOW below the root, which is opened as the
 * user named it). Mounts below the root are walked too, but for the
 * pseudo filesystems that cannot hold an executable's value, named as
 * they are passed, and a mount of a directory above itself is not walked
 * again. A directory gone, moved or refused to root while walked is
 * skipped; one that cannot be listed fails the walk. Depth costs no
 * descriptors and no more memory than its path: only the last FD_WINDOW
 * directories stay open, and one closed is found again from below
 * through "..", checked to be the same directory.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/types.h>
#include "walk.h"

#define FD_WINDOW 64	/* directories held open below the root */

/* Filesystems that hold no executable with a security.capability value */
static int pseudo_fs(long type)
{
	static const long types[] = {
		PROC_SUPER_MAGIC, SYSFS_MAGIC, DEVPTS_SUPER_MAGIC, BPF_FS_MAGIC, TRACEFS_MAGIC,
		DEBUGFS_MAGIC, SECURITYFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
		PSTOREFS_MAGIC, 0x19800202 /* mqueue */, 0x62656570 /* configfs */ };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (type == types[i])
			return 1;
	return 0;
}

/* The path of what is walked, one buffer for every level: each frame
 * keeps the length of its own, so that memory grows with the depth times
 * a name, never with the square of the depth */
struct path_buf {
	char *s;
	size_t len, cap;
};

/* Add "/@name": 0, or -1 out of memory */
static int path_push(struct path_buf *p, const char *name)
{
	size_t n = strlen(name), want = p->len + n + 2;
	char *grown;

	if (want > p->cap) {
		grown = realloc(p->s, want * 2);
		if (!grown)
			return -1;
		p->s = grown;
		p->cap = want * 2;
	}
	p->s[p->len++] = '/';
	memcpy(p->s + p->len, name, n + 1);
	p->len += n;
	return 0;
}

static void path_cut(struct path_buf *p, size_t len)
{
	p->len = len;
	p->s[len] = 0;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The names in the directory open as @fd (which stays open) */
static char **read_names(int fd, size_t *n)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	char **names = NULL, **grown;
	struct dirent *e;
	size_t cap = 0;
	int failed = 0;

	*n = 0;
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return NULL;
	}
	/* a listing cut short is a failure, never a shorter directory */
	while (errno = 0, (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(names, cap * sizeof(*names));
			if (!grown) {
				failed = 1;
				break;
			}
			names = grown;
		}
		names[*n] = strdup(e->d_name);
		if (!names[(*n)++]) {
			failed = 1;
			break;
		}
	}
	failed |= !e && errno;
	closedir(d);
	if (failed) {
		free_names(names, *n);
		return NULL;
	}
	return names ? names : calloc(1, sizeof(*names));
}

/* A directory to walk: its descriptor, its names, and where it is */
struct frame {
	int fd;		/* -1 while outside the window */
	dev_t dev;
	ino_t ino;
	__u64 mnt_id;
	char **names;
	size_t n, next;
	size_t plen;	/* its path: the path buffer's first plen bytes */
};

/* Tell @w of @f (its path a prefix of the buffer's) */
static void frame_says(struct walk *w, struct path_buf *pb, const struct frame *f,
		       int fail, const char *why)
{
	char c = pb->s[f->plen];

	pb->s[f->plen] = 0;
	(fail ? w->fail : w->skip)(w, pb->s, why);
	pb->s[f->plen] = c;
}

/* Errors a user can cause on a directory of theirs: gone, moved, replaced
 * by a link, or a FUSE mount (without allow_other) that answers root
 * EACCES */
static int user_caused(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ELOOP || err == EACCES || err == EPERM;
}

/* A directory already on the stack: a bind mount of one above itself */
static int on_stack(const struct frame *stack, size_t depth, const struct stat *st)
{
	for (size_t i = 0; i < depth; i++)
		if (stack[i].dev == st->st_dev && stack[i].ino == st->st_ino)
			return 1;
	return 0;
}

/* Open @name below stack[@depth - 1] (the buffer holds its path) as
 * stack[@depth]; 1 pushed, 0 skipped */
static int enter(struct walk *w, struct frame *stack, size_t depth, const char *name,
		 const char *path, size_t plen)
{
	struct frame *f = &stack[depth - 1], *child = &stack[depth];
	struct statx stx;
	struct statfs sfs;
	struct stat st;
	int fd = openat(f->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		if (user_caused(errno))
			w->skip(w, path, "gone, replaced or refused while scanned");
		else
			w->fail(w, path, strerror(errno));
		return 0;
	}
	if (fstat(fd, &st) || fstatfs(fd, &sfs) ||
	    statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx)) {
		w->fail(w, path, strerror(errno));
		close(fd);
		return 0;
	}
	if (st.st_dev != f->dev && pseudo_fs(sfs.f_type)) {
		fprintf(stderr, "fcapsctl: scan: %s: a %#lx mount, which holds no file "
			"capabilities: not walked\n", path, (unsigned long)sfs.f_type);
		close(fd);
		return 0;
	}
	/* only a mount can make a cycle: looked for at mounts alone */
	if (stx.stx_mnt_id != f->mnt_id && on_stack(stack, depth, &st)) {
		w->skip(w, path, "a mount of a directory above it: not walked again");
		close(fd);
		return 0;
	}
	child->names = read_names(fd, &child->n);
	if (!child->names) {
		w->fail(w, path, "cannot list it");
		close(fd);
		return 0;
	}
	child->fd = fd;
	child->dev = st.st_dev;
	child->ino = st.st_ino;
	child->mnt_id = stx.stx_mnt_id;
	child->next = 0;
	child->plen = plen;
	return 1;
}

static int same_dir(int fd, const struct frame *f)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_dev == f->dev && st.st_ino == f->ino;
}

/* Open again stack[@top], closed for the window, from the nearest open
 * frame below by the names walked; a directory that is not the one seen
 * (moved while scanned) ends the walk of it and of those above it */
static void reopen(struct walk *w, struct path_buf *pb, struct frame *stack, size_t top)
{
	size_t i = top;
	int fd;

	while (stack[i - 1].fd < 0)
		i--;
	fd = stack[i - 1].fd;
	for (; i <= top; i++) {
		const struct frame *up = &stack[i - 1];
		int next = openat(fd, up->names[up->next - 1],
				  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd != up->fd)
			close(fd);
		fd = next;
		if (fd < 0 || !same_dir(fd, &stack[i]))
			break;
	}
	if (i <= top) {
		if (fd < 0 && !user_caused(errno))
			frame_says(w, pb, &stack[i], 1, strerror(errno));
		else
			frame_says(w, pb, &stack[i], 0, "moved or refused while scanned");
		for (; i <= top; i++)
			stack[i].next = stack[i].n;
		if (fd >= 0)
			close(fd);
		return;
	}
	stack[top].fd = fd;
}

/* Leave stack[@top]: its parent, if closed for the window, is opened
 * again through "..", while this one is still open (so that the next
 * frame down can be too) */
static void leave(struct frame *stack, size_t top)
{
	struct frame *up = &stack[top - 1];
	int fd;

	if (top > 1 && up->fd < 0 && stack[top].fd >= 0) {
		fd = openat(stack[top].fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0 && same_dir(fd, up))
			up->fd = fd;
		else if (fd >= 0)
			close(fd);
	}
	if (stack[top].fd >= 0)
		close(stack[top].fd);
}

void walk_tree(struct walk *w, int rootfd, const char *root)
{
	struct path_buf pb = {};
	struct frame *stack = NULL, *grown;
	size_t depth = 0, cap = 0;
	struct statx stx;
	struct stat st;

	if (fstat(rootfd, &st) || statx(rootfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx)) {
		w->fail(w, root, strerror(errno));
		return;
	}
	stack = malloc(sizeof(*stack));
	pb.s = strdup(root);
	if (!stack || !pb.s) {
		w->fail(w, root, "no memory");
		goto out;
	}
	pb.len = pb.cap = strlen(root);
	cap = 1;
	stack[0] = (struct frame){ .fd = rootfd, .dev = st.st_dev, .ino = st.st_ino,
				   .mnt_id = stx.stx_mnt_id, .plen = pb.len };
	stack[0].names = read_names(rootfd, &stack[0].n);
	depth = stack[0].names ? 1 : 0;
	if (!depth)
		w->fail(w, root, "cannot list it");
	while (depth && !w->failed) {
		struct frame *f = &stack[depth - 1];
		const char *name;

		path_cut(&pb, f->plen);
		if (f->next < f->n && f->fd < 0)
			reopen(w, &pb, stack, depth - 1);
		if (f->next == f->n) {
			free_names(f->names, f->n);
			if (depth > 1)
				leave(stack, depth - 1);
			depth--;
			continue;
		}
		name = f->names[f->next++];
		if (path_push(&pb, name)) {
			w->fail(w, name, "no memory");
			continue;
		}
		if (fstatat(f->fd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno == ENOENT)
				w->skip(w, pb.s, "gone while scanned");
			else if (errno == EACCES || errno == EPERM)
				w->skip(w, pb.s, "refused to root (a user's FUSE mount)");
			else
				w->fail(w, pb.s, strerror(errno));
			continue;
		}
		if (S_ISREG(st.st_mode))
			w->file(w, f->fd, name, pb.s);
		if (!S_ISDIR(st.st_mode))
			continue;
		if (depth == cap) {
			grown = realloc(stack, 2 * cap * sizeof(*stack));
			if (!grown) {
				w->fail(w, pb.s, "no memory");
				continue;
			}
			stack = grown;
			cap *= 2;
		}
		if (!enter(w, stack, depth, name, pb.s, pb.len))
			continue;
		if (++depth > FD_WINDOW + 1) {
			close(stack[depth - 1 - FD_WINDOW].fd);
			stack[depth - 1 - FD_WINDOW].fd = -1;
		}
	}
	while (depth) {
		depth--;
		free_names(stack[depth].names, stack[depth].n);
		if (depth && stack[depth].fd >= 0)
			close(stack[depth].fd);
	}
out:
	free(pb.s);
	free(stack);
}
