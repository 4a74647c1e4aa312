// SPDX-License-Identifier: GPL-2.0-only
/*
 * unload-race MODULE FILE TEXT: unloads MODULE (delete_module(), as rmmod
 * does) back to back while a child writes TEXT to FILE, until the unload
 * succeeds or 30 s pass. The unloading starts first; the write begins once
 * the first unload was refused. Prints "refused N write-running yes|no":
 * how many unloads were refused and whether the write was still running
 * when the unload succeeded. Exits 0 when the module was unloaded and the
 * write succeeded, 1 otherwise (with the reason on stderr). Used by the e2e
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
	int go[2], status, running = 1;
	unsigned long refused = 0;
	time_t end = time(NULL) + 30;
	pid_t child;
	char c = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: unload-race MODULE FILE TEXT\n");
		return 2;
	}
	if (pipe(go))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(write_file(argv[2], argv[3]));
	}
	close(go[0]);
	while (syscall(SYS_delete_module, argv[1], O_NONBLOCK)) {
		if (errno != EWOULDBLOCK && errno != EBUSY) {
			fprintf(stderr, "unload-race: delete_module %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
		if (!refused++ && write(go[1], &c, 1) != 1)
			return 1;
		if (time(NULL) > end) {
			fprintf(stderr, "unload-race: %s still in use 30 s on (%lu refusals)\n",
				argv[1], refused);
			return 1;
		}
	}
	if (!refused && write(go[1], &c, 1) != 1)
		return 1;
	if (waitpid(child, &status, WNOHANG) == child)
		running = 0;
	else if (waitpid(child, &status, 0) != child)
		return 1;
	printf("refused %lu write-running %s\n", refused, running ? "yes" : "no");
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
}
