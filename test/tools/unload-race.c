// SPDX-License-Identifier: GPL-2.0-only
/*
 * unload-race MODULE FILE TEXT: unloads MODULE (delete_module(), as rmmod
 * does) back to back while a child writes TEXT to FILE, until the unload
 * succeeds or 30 s pass. The unloading starts first; the write begins once
 * the first unload was refused. Prints "refused N overlap yes|no": how many
 * unloads were refused and whether the one that succeeded began before the
 * write returned. Exits 0 when the module was unloaded and the write
 * succeeded, 1 otherwise (with the reason on stderr). Used by the e2e
 * scenarios to race rmmod against a sysfs write that tears something down.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		fprintf(stderr, "unload-race: write %s: %s\n", path, strerror(errno));
		return 1;
	}
	return close(fd) ? 1 : 0;
}

int main(int argc, char **argv)
{
	int go[2], done[2], status;
	unsigned long refused = 0;
	double end = now() + 30, last, written;
	pid_t child;
	char c = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: unload-race MODULE FILE TEXT\n");
		return 2;
	}
	if (pipe(go) || pipe(done))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		int rc;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		rc = write_file(argv[2], argv[3]);
		written = now();
		if (write(done[1], &written, sizeof(written)) != sizeof(written))
			_exit(1);
		_exit(rc);
	}
	close(go[0]);
	close(done[1]);
	for (last = now(); syscall(SYS_delete_module, argv[1], O_NONBLOCK); last = now()) {
		if (errno != EWOULDBLOCK && errno != EBUSY) {
			fprintf(stderr, "unload-race: delete_module %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
		if (!refused++ && write(go[1], &c, 1) != 1)
			return 1;
		if (last > end) {
			fprintf(stderr, "unload-race: %s still in use 30 s on (%lu refusals)\n",
				argv[1], refused);
			return 1;
		}
	}
	if (!refused && write(go[1], &c, 1) != 1)
		return 1;
	if (read(done[0], &written, sizeof(written)) != sizeof(written) ||
	    waitpid(child, &status, 0) != child)
		return 1;
	printf("refused %lu overlap %s\n", refused, last < written ? "yes" : "no");
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
}
