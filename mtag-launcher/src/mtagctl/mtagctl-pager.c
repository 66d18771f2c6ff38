/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-pager.c -- the terminal: page the output the way systemctl
 * does, and colour it when wanted. */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <systemd/sd-login.h>

#include "mtagctl.h"

bool ctl_want_color(void)
{
	const char *t = getenv("TERM");
	const char *sc = getenv("SYSTEMD_COLORS");

	if (getenv("NO_COLOR"))
		return false;
	if (sc && (strcmp(sc, "0") == 0 || strcmp(sc, "false") == 0 || strcmp(sc, "no") == 0))
		return false;
	if (sc && (strcmp(sc, "1") == 0 || strcmp(sc, "true") == 0 || strcmp(sc, "yes") == 0))
		return true;
	return isatty(STDOUT_FILENO) && t && strcmp(t, "dumb") != 0;
}

const char *ctl_color(const struct ctl *c, const char *seq)
{
	return c->color ? seq : "";
}

static pid_t pager_pid;

/* systemd's getenv_bool(): 1 or 0, -ENXIO when unset, -EINVAL otherwise. */
static int env_bool(const char *v)
{
	static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
	static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

	if (!v)
		return -ENXIO;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return 1;
		if (strcasecmp(v, no[i]) == 0)
			return 0;
	}
	return -EINVAL;
}

bool pager_secure_mode(const char *pagersecure, int owner_r, uid_t owner, uid_t euid,
		       bool *trust_pager, bool *bad_value)
{
	int r = env_bool(pagersecure);

	*trust_pager = r >= 0;
	*bad_value = r == -EINVAL;
	if (r == -ENXIO)
		return owner_r < 0 || owner != euid;
	if (r < 0)
		return true;
	return r;
}

/* In the pager's process: what systemd's pager.c does (systemd >= 248,
 * Debian 12's 252 included).  The pager is a program the user talks to,
 * and less runs a shell on "!", "|" and "v": under sudo that is a root
 * shell (CVE-2023-26604).  So unless $SYSTEMD_PAGERSECURE says otherwise,
 * a process whose effective uid is not the uid that owns its login
 * session (sudo, pkexec, su, or no session at all) runs less with
 * LESSSECURE=1 and ignores $SYSTEMD_PAGER and $PAGER, which it cannot
 * know to be safe. */
static void pager_exec(const char *pager)
{
	bool trust_pager, bad_value, secure;
	uid_t owner = (uid_t)-1;
	int r;

	setenv("LESS", getenv("SYSTEMD_LESS") ? getenv("SYSTEMD_LESS") : "FRSXMK", 1);
	r = sd_pid_get_owner_uid(0, &owner);
	secure = pager_secure_mode(getenv("SYSTEMD_PAGERSECURE"), r, owner, geteuid(),
				   &trust_pager, &bad_value);
	if (bad_value)
		fprintf(stderr, "mtagctl: warning: cannot parse $SYSTEMD_PAGERSECURE, assuming true\n");
	if (secure ? setenv("LESSSECURE", "1", 1) : unsetenv("LESSSECURE"))
		_exit(EXIT_FAILURE);
	if (trust_pager && pager) {
		execlp(pager, pager, (char *)NULL);
		execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
	}
	/* Debian's alternative "pager" first; only less has a secure mode. */
	if (!secure)
		execlp("pager", "pager", (char *)NULL);
	execlp("less", "less", (char *)NULL);
	if (!secure)
		execlp("more", "more", (char *)NULL);
}

void pager_open(const struct ctl *c)
{
	const char *pager;
	pid_t parent = getpid();
	int fd[2];
	pid_t pid;

	if (c->no_pager || pager_pid || !isatty(STDOUT_FILENO))
		return;
	pager = getenv("SYSTEMD_PAGER");
	if (!pager)
		pager = getenv("PAGER");
	if (pager && (!*pager || strcmp(pager, "cat") == 0))
		return;
	if (pipe(fd) < 0)
		return;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (pid == 0) {
		dup2(fd[0], STDIN_FILENO);
		close(fd[0]);
		close(fd[1]);
		/* The pager goes when mtagctl goes. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
			_exit(EXIT_SUCCESS);
		pager_exec(pager);
		/* No pager: copy through. */
		{
			char buf[4096];
			ssize_t n;

			while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
				if (write(STDOUT_FILENO, buf, (size_t)n) != n)
					break;
		}
		_exit(0);
	}
	dup2(fd[1], STDOUT_FILENO);
	close(fd[0]);
	close(fd[1]);
	signal(SIGPIPE, SIG_IGN);
	pager_pid = pid;
}

void pager_close(void)
{
	if (!pager_pid)
		return;
	fflush(stdout);
	fclose(stdout);
	while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
		;
	pager_pid = 0;
}
