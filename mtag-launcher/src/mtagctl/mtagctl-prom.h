/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-prom.h -- "status --prometheus" (mtagctl-prom.c). */
#ifndef MTAG_MTAGCTL_PROM_H
#define MTAG_MTAGCTL_PROM_H

#include <stdbool.h>
#include <stddef.h>

#include "mtagctl.h"
#include "mtagctl-verdict.h"
#include "packages.h"

/* What status --prometheus says of the host (read by mtagctl-status.c). */
struct prom_host {
	bool hw_mte;              /* HWCAP2_MTE */
	bool kernel_execdef;      /* MTE_ExecDefault: an mtag kernel (patch 0006) */
	bool faultd_up;           /* mtag-faultd.service is active */
	struct pkg_set pkgs;      /* libc6, libjemalloc2, the kernel: whose builds */
};

/* status --prometheus: every service in ROWS, the counters of
 * mtag-faultd's state file in C->state_dir (no I/O but that file). */
struct prom;
void prom_metrics(struct prom *p, const struct ctl *c, const struct svc_state *rows, size_t n,
		  const struct prom_host *h);
int prom_write(const struct ctl *c, const struct svc_state *rows, size_t n, const struct prom_host *h);

#endif
