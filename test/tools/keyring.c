// SPDX-License-Identifier: GPL-2.0-only
/*
 * The two keyctl(1) steps ndctl's security commands need, for guests that
 * have no keyctl and no TPM:
 *
 * keyring master NAME: puts a "user" key NAME of 32 random bytes into the
 *	user keyring and links that keyring into the session, which is what
 *	ndctl setup-passphrase takes as the master key (kek) of the nvdimm
 *	keys it makes;
 * keyring unlink TYPE DESC: takes the key TYPE DESC out of the user
 *	keyring, so the kernel no longer finds it.
 */
#include <errno.h>
#include <linux/keyctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

static int master(const char *name)
{
	unsigned char secret[32];

	if (getrandom(secret, sizeof(secret), 0) != sizeof(secret)) {
		perror("keyring: getrandom");
		return 1;
	}
	if (syscall(SYS_add_key, "user", name, secret, sizeof(secret),
		    KEY_SPEC_USER_KEYRING) < 0) {
		perror("keyring: add_key");
		return 1;
	}
	if (syscall(SYS_keyctl, KEYCTL_LINK, KEY_SPEC_USER_KEYRING,
		    KEY_SPEC_SESSION_KEYRING) < 0) {
		perror("keyring: link the user keyring into the session");
		return 1;
	}
	return 0;
}

static int unlink_key(const char *type, const char *desc)
{
	long key = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING,
			   type, desc, 0);

	if (key < 0) {
		fprintf(stderr, "keyring: no %s key %s: %s\n", type, desc,
			strerror(errno));
		return 1;
	}
	if (syscall(SYS_keyctl, KEYCTL_UNLINK, key, KEY_SPEC_USER_KEYRING) < 0) {
		perror("keyring: unlink");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "master"))
		return master(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "unlink"))
		return unlink_key(argv[2], argv[3]);
	fprintf(stderr, "usage: keyring master NAME | keyring unlink TYPE DESC\n");
	return 2;
}
