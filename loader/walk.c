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
 * they are passed. A directory gone or moved while walked is skipped; one
 * that cannot be listed fails the walk. Depth costs no descriptors: only
 * the last FD_WINDOW directories stay open, and one closed is found
 * again from below through "..", checked to be the same directory.
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

/* @dir/@name, for messages and the entry's path (heap: no length limit) */
static char *join(const char *dir, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
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
	char **names;
	size_t n, next;
	char *path;
};

/* Open @name below @f as a directory to walk; 1 pushed, 0 skipped */
static int enter(struct walk *w, struct frame *f, const char *name, char *path,
		 struct frame *child)
{
	struct statfs sfs;
	struct stat st;
	int fd = openat(f->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
			w->skip(w, path, "gone or replaced while scanned");
		else
			w->fail(w, path, strerror(errno));
		return 0;
	}
	if (fstat(fd, &st) || fstatfs(fd, &sfs)) {
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
	child->names = read_names(fd, &child->n);
	if (!child->names) {
		w->fail(w, path, "cannot list it");
		close(fd);
		return 0;
	}
	child->fd = fd;
	child->dev = st.st_dev;
	child->ino = st.st_ino;
	child->next = 0;
	child->path = path;
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
static void reopen(struct walk *w, struct frame *stack, size_t top)
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
		if (fd < 0 && errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
			w->fail(w, stack[i].path, strerror(errno));
		else
			w->skip(w, stack[i].path, "moved while scanned");
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
	struct frame *stack = NULL, *grown;
	size_t depth = 0, cap = 0;
	struct stat st;

	if (fstat(rootfd, &st)) {
		w->fail(w, root, strerror(errno));
		return;
	}
	stack = malloc(sizeof(*stack));
	cap = 1;
	stack[0] = (struct frame){ .fd = rootfd, .dev = st.st_dev, .ino = st.st_ino,
				   .path = strdup(root) };
	stack[0].names = read_names(rootfd, &stack[0].n);
	depth = stack[0].names ? 1 : 0;
	if (!depth)
		w->fail(w, root, "cannot list it");
	while (depth && !w->failed) {
		struct frame *f = &stack[depth - 1];
		const char *name;
		char *path;

		if (f->next < f->n && f->fd < 0)
			reopen(w, stack, depth - 1);
		if (f->next == f->n) {
			free_names(f->names, f->n);
			free(f->path);
			if (depth > 1)
				leave(stack, depth - 1);
			depth--;
			continue;
		}
		name = f->names[f->next++];
		path = join(f->path, name);
		if (!path || fstatat(f->fd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			if (path && errno == ENOENT)
				w->skip(w, path, "gone while scanned");
			else if (path && (errno == EACCES || errno == EPERM))
				w->skip(w, path, "refused to root (a user's FUSE mount)");
			else
				w->fail(w, path ? path : name, path ? strerror(errno) : "no memory");
			free(path);
			continue;
		}
		if (S_ISREG(st.st_mode))
			w->file(w, f->fd, name, path);
		if (!S_ISDIR(st.st_mode)) {
			free(path);
			continue;
		}
		if (depth == cap) {
			grown = realloc(stack, 2 * cap * sizeof(*stack));
			if (!grown) {
				w->fail(w, path, "no memory");
				free(path);
				continue;
			}
			stack = grown;
			cap *= 2;
		}
		if (!enter(w, &stack[depth - 1], name, path, &stack[depth])) {
			free(path);
			continue;
		}
		if (++depth > FD_WINDOW + 1) {
			close(stack[depth - 1 - FD_WINDOW].fd);
			stack[depth - 1 - FD_WINDOW].fd = -1;
		}
	}
	while (depth) {
		depth--;
		free_names(stack[depth].names, stack[depth].n);
		free(stack[depth].path);
		if (depth && stack[depth].fd >= 0)
			close(stack[depth].fd);
	}
	free(stack);
}

