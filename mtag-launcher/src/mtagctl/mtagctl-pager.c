/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-pager.c -- the terminal: page the output the way systemctl
 * does, and colour it when wanted. */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

void pager_open(const struct ctl *c)
{
	const char *pager;
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
		/* As systemd: quit at EOF of one screen, raw colours, no init. */
		setenv("LESS", getenv("SYSTEMD_LESS") ? getenv("SYSTEMD_LESS") : "FRSXMK", 1);
		if (pager) {
			execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		} else {
			execlp("less", "less", (char *)NULL);
			execlp("more", "more", (char *)NULL);
		}
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
