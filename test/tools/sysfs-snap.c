// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs-snap: copies sysfs trees into a directory for offline tests.
 *
 *   sysfs-snap DEST PATH...
 *
 * Each PATH (e.g. /sys/bus/cxl) is copied to DEST/PATH: directories are
 * walked without following symlinks, symlinks are recreated with their
 * (relative) target text, and each readable text attribute is copied with its
 * mode. Write-only attributes become empty files with their mode (they exist,
 * nothing can be read from them); binary attributes (any NUL byte), files over
 * 64 KiB and files that fail to read are skipped. A symlink that points into /sys/devices
 * (outside the huge system/ and ACPI namespace trees) is followed: its target
 * directory is copied too, with the attributes of the directories above it,
 * so links in the copy resolve as on the live system.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ATTR (64 * 1024)
#define MAX_TREES 4096

static const char *dest;
static char *copied[MAX_TREES];
static int ncopied;
static char *pending[MAX_TREES];
static int npending;
static long nfiles, nbytes;

static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

static void mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

static void copy_attr(const char *src, const char *dst, mode_t mode)
{
	static char buf[MAX_ATTR + 1];
	ssize_t n;
	int fd;

	n = 0;
	if (mode & 0400) {
		fd = open(src, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			return;
		n = read(fd, buf, sizeof(buf));
		close(fd);
		if (n < 0 || n > MAX_ATTR || memchr(buf, 0, n))
			return;
	}
	fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, mode & 0777);
	if (fd < 0 || write(fd, buf, n) != n) {
		perror(dst);
		exit(2);
	}
	fchmod(fd, mode & 0777);
	close(fd);
	nfiles++;
	nbytes += n;
}

static void follow(const char *link)
{
	char target[PATH_MAX];

	if (!realpath(link, target) || !under(target, "/sys/devices") ||
	    under(target, "/sys/devices/system") || under(target, "/sys/devices/LNXSYSTM:00"))
		return;
	if (npending == MAX_TREES) {
		fprintf(stderr, "sysfs-snap: more than %d linked trees\n", MAX_TREES);
		exit(2);
	}
	pending[npending++] = strdup(target);
}

/* copy_dir: copies src (recursively when deep) to dest/src. */
static void copy_dir(const char *src, int deep)
{
	char from[PATH_MAX], to[PATH_MAX], link[PATH_MAX];
	struct dirent *e;
	struct stat st;
	ssize_t n;
	DIR *d;

	snprintf(to, sizeof(to), "%s%s", dest, src);
	mkdirs(to);
	d = opendir(src);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(from, sizeof(from), "%s/%s", src, e->d_name);
		snprintf(to, sizeof(to), "%s%s", dest, from);
		if (lstat(from, &st))
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(from, link, sizeof(link) - 1);
			if (n < 0)
				continue;
			link[n] = 0;
			unlink(to);
			if (symlink(link, to)) {
				perror(to);
				exit(2);
			}
			if (deep)
				follow(from);
		} else if (S_ISDIR(st.st_mode)) {
			if (deep)
				copy_dir(from, 1);
		} else if (S_ISREG(st.st_mode)) {
			copy_attr(from, to, st.st_mode);
		}
	}
	closedir(d);
}

static void copy_tree(const char *src)
{
	char up[PATH_MAX];
	char *slash;

	for (int i = 0; i < ncopied; i++)
		if (under(src, copied[i]))
			return;
	if (ncopied == MAX_TREES) {
		fprintf(stderr, "sysfs-snap: more than %d trees\n", MAX_TREES);
		exit(2);
	}
	copied[ncopied++] = strdup(src);
	copy_dir(src, 1);
	/* The attributes of the parents: a device's PCI or platform ancestry. */
	snprintf(up, sizeof(up), "%s", src);
	while ((slash = strrchr(up, '/')) && slash - up > (long)strlen("/sys/devices")) {
		*slash = 0;
		if (!under(up, "/sys/devices"))
			break;
		copy_dir(up, 0);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: sysfs-snap DEST PATH...\n");
		return 2;
	}
	dest = argv[1];
	for (int i = 2; i < argc; i++)
		copy_tree(argv[i]);
	while (npending) {
		char *next = pending[--npending];

		copy_tree(next);
		free(next);
	}
	printf("sysfs-snap: %ld attributes, %ld bytes, %d trees into %s\n",
	       nfiles, nbytes, ncopied, dest);
	return 0;
}
