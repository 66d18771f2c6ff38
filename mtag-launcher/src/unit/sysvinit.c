/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysvinit.c -- SysV init scripts as systemd-sysv-generator sees them
 * (systemd 252, src/sysv-generator/sysv-generator.c enumerate_sysv()):
 * every directory of the SysV path, each entry that is not hidden or a
 * backup (hidden_or_backup_file()), is a regular file with the owner's
 * execute bit, named NAME or NAME.sh, gives NAME.service -- unless a
 * native unit of that name exists, which the caller checks first. */
#include <dirent.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysvinit.h"
#include "execstart.h"
#include "unitmap.h"
#include "util.h"

#define SYSV_DEFAULT_PATH "/etc/init.d"

void sysv_paths(struct sysv_dirs *dirs, const char *root)
{
	const char *env = getenv("SYSTEMD_SYSVINIT_PATH");
	char *copy = xstrdup(env && *env ? env : SYSV_DEFAULT_PATH), *save = NULL;

	memset(dirs, 0, sizeof(*dirs));
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (*d != '/')
			continue;
		/* As unit_paths(): the variable's directories are taken as
		 * they are, the default is looked up under ROOT. */
		strv_push(&dirs->open, env && *env ? xstrdup(d)
						   : xasprintf("%s%s", root ? root : "", d));
		strv_push(&dirs->shown, xstrdup(d));
	}
	free(copy);
}

void sysv_dirs_free(struct sysv_dirs *dirs)
{
	strv_free(&dirs->open);
	strv_free(&dirs->shown);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* systemd's hidden_or_backup_file() (basic/dirent-util.c). */
static bool hidden_or_backup(const char *name)
{
	static const char *const suffixes[] = {
		"~", ".rpmnew", ".rpmsave", ".rpmorig", ".dpkg-old", ".dpkg-new",
		".dpkg-tmp", ".dpkg-dist", ".dpkg-bak", ".dpkg-backup", ".dpkg-remove",
		".ucf-new", ".ucf-old", ".ucf-dist", ".swp", ".bak", ".old", ".new",
	};

	if (name[0] == '.')
		return true;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (ends_with(name, suffixes[i]))
			return true;
	return false;
}

char *sysv_unit_name(int dirfd, const char *name)
{
	struct stat st;
	char *unit;
	size_t n;

	if (hidden_or_backup(name))
		return NULL;
	if (fstatat(dirfd, name, &st, 0) < 0 || !(st.st_mode & S_IXUSR) || !S_ISREG(st.st_mode))
		return NULL;
	n = strlen(name);
	if (ends_with(name, ".sh"))
		n -= 3;
	unit = xasprintf("%.*s.service", (int)n, name);
	/* unit_name_mangle() would escape a name that is not a valid unit
	 * name; such scripts (none in Debian) are left alone here. */
	if (n == 0 || unit_name_kind(unit) != UNIT_NAME_PLAIN) {
		free(unit);
		return NULL;
	}
	return unit;
}

char *sysv_script(const struct sysv_dirs *dirs, const char *unit)
{
	if (!ends_with(unit, ".service") || unit_name_kind(unit) != UNIT_NAME_PLAIN)
		return NULL;
	for (size_t i = 0; i < dirs->open.n; i++) {
		int fd = open(dirs->open.v[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		size_t n = strlen(unit) - strlen(".service");
		char *cand[2] = { xasprintf("%.*s", (int)n, unit), xasprintf("%.*s.sh", (int)n, unit) };
		char *found = NULL;

		if (fd < 0) {
			free(cand[0]);
			free(cand[1]);
			continue;
		}
		/* The directory order decides between NAME and NAME.sh in
		 * systemd; both in one directory is a packaging bug, and the
		 * plain name wins here. */
		for (int k = 0; k < 2 && !found; k++) {
			char *u = sysv_unit_name(fd, cand[k]);

			if (u && strcmp(u, unit) == 0)
				found = xasprintf("%s/%s", dirs->shown.v[i], cand[k]);
			free(u);
		}
		close(fd);
		free(cand[0]);
		free(cand[1]);
		if (found)
			return found;
	}
	return NULL;
}

void sysv_list(const struct sysv_dirs *dirs, struct strv *names)
{
	for (size_t i = 0; i < dirs->open.n; i++) {
		DIR *d = opendir(dirs->open.v[i]);
		struct dirent *de;

		if (!d)
			continue;
		while ((de = readdir(d))) {
			char *u = sysv_unit_name(dirfd(d), de->d_name);

			if (u)
				strv_push(names, u);
		}
		closedir(d);
	}
}

char *sysv_exec_start(const char *script)
{
	bool plain = strspn(script, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789/._+-") == strlen(script);
	char *w = plain ? xstrdup(script) : unit_exec_word(script);
	char *out = xasprintf("%s start", w);

	free(w);
	return out;
}
