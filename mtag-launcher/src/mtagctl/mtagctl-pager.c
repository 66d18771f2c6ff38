/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-pager.c -- page the output the way systemctl does. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mtagctl.h"

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
