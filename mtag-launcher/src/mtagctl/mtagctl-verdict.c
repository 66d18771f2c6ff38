/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-verdict.c -- the verdict of "mtagctl status" on one service
 * (see mtagctl-verdict.h). */
#include "mtagctl-verdict.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "smaps.h"
#include "systemd-time.h"

/* Whether F says PACKAGE ("libc6", "libjemalloc2", "kernel") is
 * Debian's build; if so, S's lost and lost_version name it. */
static bool debian_build(const struct svc_facts *f, const char *package, struct svc_state *s)
{
	const struct pkg_info *pi;

	if (!f->pkgs)
		return false;
	pi = strcmp(package, "libc6") == 0 ? &f->pkgs->libc6 :
	     strcmp(package, "libjemalloc2") == 0 ? &f->pkgs->jemalloc : &f->pkgs->kernel;
	if (pi->build != PKG_DEBIAN)
		return false;
	snprintf(s->lost, sizeof(s->lost), "%s", package);
	snprintf(s->lost_version, sizeof(s->lost_version), "%s", pi->version);
	return true;
}

void svc_verdict(const struct svc_facts *f, struct svc_state *s)
{
	/* The first reason that applies. */
	/* The service as people say it: "postgresql@15-main". */
	char who[sizeof(s->unit)];
	size_t wl;

	snprintf(who, sizeof(who), "%s", s->unit[0] ? s->unit : "this service");
	wl = strlen(who);
	if (wl > 8 && strcmp(who + wl - 8, ".service") == 0)
		who[wl - 8] = '\0';

	s->as_asked = true;
	s->lost[0] = '\0';
	s->lost_version[0] = '\0';
#define NOT(...) do { s->verdict = V_NOT_PROTECTED; snprintf(s->reason, sizeof(s->reason), __VA_ARGS__); } while (0)
	if (!f->hw) {
		NOT("no MTE in this CPU or kernel");
	} else if (!s->has_policy) {
		NOT("no policy entry");
	} else if (!s->named && !f->launcher_entry) {
		NOT("no policy entry names it (the default entry, %s, applies to services that run mtag-launcher)",
		    s->source);
	} else if (s->mode == MTAG_MODE_OFF) {
		NOT("the policy says off (%s)", s->source);
	} else if (f->unwrapped_by && !f->by_pid) {
		NOT("unwrapped: %s, read after mtag-generator's zz-mtag-launcher.conf, sets ExecStart=, so the service does not run mtag-launcher (rename it to sort before zz-mtag-launcher.conf)",
		    *f->unwrapped_by ? f->unwrapped_by : "a drop-in");
	} else if (s->procs == 0 && strcmp(s->active, "failed") == 0) {
		NOT("the service failed and is not running (systemctl status %s; journalctl -u %s)",
		    s->unit, s->unit);
	} else if (s->procs == 0) {
		s->verdict = V_INACTIVE;
		snprintf(s->reason, sizeof(s->reason), "not running; %s from %s at its next start",
			 mode_name(s->mode), s->source);
	} else if (f->has_unit && !f->wrapped && !f->by_pid) {
		NOT("daemon-reload and restart needed: the policy names it (%s), but systemd has not loaded mtag-generator's drop-in", s->source);
	} else if (f->has_unit && !f->by_pid && f->started && !f->launcher_entry) {
		NOT("restart needed: started without mtag-launcher (no launcher entry in the journal for this start); policy %s (%s)",
		    mode_name(s->mode), s->source);
	} else if (f->dropin_stale) {
		NOT("daemon-reload and restart needed: the policy changed since the last daemon-reload (the unit runs \"%s\"; the policy now says \"%s\", %s)",
		    f->dropin_runs, f->policy_now, s->source);
	} else if (f->launcher_entry && (strcmp(f->le_mode, mode_name(s->mode)) != 0 ||
				       strcmp(f->le_heap, s->heap ? "on" : "off") != 0)) {
		NOT("restart needed: the policy changed since the start (running %s heap=%s from %s; the policy now says %s heap=%s, %s)",
		    f->le_mode, f->le_heap, f->le_source, mode_name(s->mode), s->heap ? "on" : "off", s->source);
	} else if (!s->running_known && debian_build(f, "kernel", s)) {
		NOT("kernel %s is not mtag's build: the kernel's exec default and MTE_TCF in /proc are not there for %s's processes (boot mtag's linux-image)",
		    s->lost_version, who);
	} else if (!s->running_known) {
		NOT("cannot tell: this kernel does not show MTE_TCF in /proc (not the mtag kernel)");
	} else if (f->odd_pid && f->odd_libc && debian_build(f, "libc6", s)) {
		NOT("libc6 %s is Debian's build: the kernel's exec default is not read by %s's processes",
		    s->lost_version, who);
	} else if (f->odd_pid && f->odd_libc) {
		NOT("this libc does not read the kernel's default: %d (%s) runs %s; the kernel's exec default says %s but no tunable reached it (a stock glibc, a static program or another libc; the mtag glibc applies it)",
		    (int)f->odd_pid, f->odd_comm, f->odd_tcf, f->odd_execdef);
	} else if (f->odd_pid) {
		NOT("mode differs between processes: %d (%s) runs %s, the policy says %s (%s)",
		    (int)f->odd_pid, f->odd_comm, f->odd_tcf, mode_name(s->mode), s->source);
	} else if (f->narrow_pid) {
		NOT("too few tags: %d (%s) may use %d non-zero tag%s (MTE_TagInclude %s): with fewer than two, neighbouring allocations share their tag and faults go unseen (an exec default or prctl without a tag mask)",
		    (int)f->narrow_pid, f->narrow_comm, f->narrow_tags, f->narrow_tags == 1 ? "" : "s",
		    f->narrow_mask);
	} else if (s->mode == MTAG_MODE_REPORT && f->secure_checking) {
		NOT("report mode is off after a secure exec in %u process%s, which stop%s at the first fault: %s; the kernel drops report mode for set-user-ID, set-group-ID and file-capability programs (mtag-policy.conf(5), REPORT MODE)",
		    f->secure_checking, f->secure_checking == 1 ? "" : "es", f->secure_checking == 1 ? "s" : "",
		    f->secure_desc ? f->secure_desc : "?");
	} else if (s->mode == MTAG_MODE_REPORT &&
		   s->report_on_procs + f->secure_report_off < s->procs) {
		NOT("report mode is not on in %u of %u processes: they stop at a fault",
		    s->procs - s->report_on_procs - f->secure_report_off, s->procs);
	} else if (s->heap && f->jemalloc == JEMALLOC_STOCK && debian_build(f, "libjemalloc2", s)) {
		NOT("libjemalloc2 %s is Debian's build: %s's heap is not tagged (%s)",
		    s->lost_version, who, f->jemalloc_path);
	} else if (s->heap && f->jemalloc == JEMALLOC_STOCK) {
		NOT("own allocator: jemalloc, install libjemalloc2 +mtag1 (%s does not tag its heap)", f->jemalloc_path);
	} else if (s->heap && !smaps_heap_tagged(s->malloc_kb, s->mt_malloc_kb)) {
		NOT("heap not tagged: %llu of %llu kB malloc-able memory (mappings without a file, [heap]) in PROT_MTE mappings; its own allocator (not glibc malloc) does not tag, so overflows and use-after-free go unseen",
		    s->mt_malloc_kb, s->malloc_kb);
	} else if (s->mode == MTAG_MODE_REPORT) {
		s->verdict = V_REPORT_ONLY;
		snprintf(s->reason, sizeof(s->reason),
			 "faults are logged, not stopped%s", s->threads_suspended ? "; checking suspended in some threads" : "");
		if (s->threads_suspended)
			snprintf(s->reason, sizeof(s->reason),
				 "faults are logged, not stopped; checking suspended by a reported fault in %u thread%s",
				 s->threads_suspended, s->threads_suspended == 1 ? "" : "s");
		if (f->secure_procs) {
			size_t o = strlen(s->reason);

			snprintf(s->reason + o, sizeof(s->reason) - o,
				 "; %u process%s run%s without tag checking after a secure exec (the kernel drops report mode and the exec default for set-user-ID, set-group-ID and file-capability programs): %s",
				 f->secure_procs, f->secure_procs == 1 ? "" : "es", f->secure_procs == 1 ? "s" : "",
				 f->secure_desc ? f->secure_desc : "?");
		}
	} else {
		s->verdict = V_PROTECTED;
		snprintf(s->reason, sizeof(s->reason), "%s%s in %u process%s, %u thread%s",
			 f->jemalloc == JEMALLOC_MTAG ? "jemalloc +mtag, " : "", mode_name(s->mode), s->procs, s->procs == 1 ? "" : "es", s->threads,
			 s->threads == 1 ? "" : "s");
		if (s->origin_kernel) {
			size_t o = strlen(s->reason);

			snprintf(s->reason + o, sizeof(s->reason) - o,
				 "; mode from the kernel's exec default in %u (no tunable reached them), from the environment in %u",
				 s->origin_kernel, s->origin_env);
		}
		if (s->upgraded_procs) {
			size_t o = strlen(s->reason);
			char until[16], fault[16];

			clock_hms(s->upgrade_until_usec, until, sizeof(until));
			clock_hms(s->upgrade_fault_usec, fault, sizeof(fault));
			snprintf(s->reason + o, sizeof(s->reason) - o,
				 "; upgraded to sync until %s after the async fault at %s%s",
				 until, fault,
				 s->upgraded_procs < s->procs ? " (not in every process)" : "");
		}
	}
#undef NOT
	/* A policy asked for MTE and this is not it. */
	if (s->verdict == V_NOT_PROTECTED && s->has_policy && s->mode != MTAG_MODE_OFF)
		s->as_asked = false;
}

void clock_hms(unsigned long long usec, char *buf, size_t len)
{
	timestamp_format_local(usec, "%H:%M:%S", "?", buf, len);
}

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case V_PROTECTED:
		return "protected";
	case V_REPORT_ONLY:
		return "report only";
	case V_INACTIVE:
		return "inactive";
	case V_NOT_PROTECTED:
		break;
	}
	return "not protected";
}
