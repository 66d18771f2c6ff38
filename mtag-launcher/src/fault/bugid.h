/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugid.h -- a fault's bug identity: the object file and offset of the
 * faulting pc, that object's GNU build-id, the Debian package that owns
 * it, and a signature that names the bug across hosts.
 *
 * mtag-faultd reads them from the live process while it handles the
 * kernel's fault line (the process may be gone, or have exec'd: see
 * bug_object_of_pc()); they become MTAG_OBJECT, MTAG_OFFSET,
 * MTAG_BUILD_ID, MTAG_PACKAGE, MTAG_PACKAGE_VERSION and MTAG_SIGNATURE
 * (faultfields.h), and "mtagctl bugs" groups faults by the signature.
 *
 * The signature is the first 16 hex digits of the SHA-256 (sha256.h) of
 *
 *     "mtag-bug-v1" NUL BUILD_ID NUL CAUSE_CLASS NUL OFFSET
 *
 * BUILD_ID the faulting object's build-id in hex (the linker's hash of
 * the object's contents: the same for every host that installed the same
 * build of the package, different for any other build); CAUSE_CLASS
 * bug_cause_class() of the classifier's cause; OFFSET the pc's offset in
 * the object's file, in hex (what ASLR does not move: the absolute pc
 * differs on every host and every start).  No address, pid, host, unit or
 * time goes in.  Without a build-id (an object linked with
 * --build-id=none) the package, its version and the object's path stand
 * in for it ("pkg:NAME=VERSION:PATH"), which names the same build; with
 * neither there is no signature.  An async fault, which has no pc, gets
 * a coarse one of its main executable (bug_async_signature()); the core's
 * top frames, when there is one, a second level under the signature
 * (bug_stack_signature(), coreframes.h).  docs/bug-identity.md argues why
 * this matches one bug on two hosts and separates two.
 */
#ifndef MTAG_BUGID_H
#define MTAG_BUGID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BUG_SIGNATURE_LEN 16      /* hex digits */
#define BUG_BUILD_ID_MAX 64       /* bytes; GNU ld's sha1 is 20 */

struct bug_object {
	char path[4096];          /* as /proc/PID/maps names it (untrusted
	                             bytes: escape before printing) */
	uint64_t offset;          /* the pc's offset in the file */
	uint64_t inode;           /* the mapping's inode */
	char build_id[2 * BUG_BUILD_ID_MAX + 1]; /* hex, "" unknown */
	char package[256];        /* "libc6:arm64", "" unknown */
	char version[128];        /* "2.36-9+deb12u4" */
	char note[256];           /* why a part is missing, "" none */
};

/* The object mapped at PC in PROC/PID (PROC "/proc", or a recorded tree
 * for the tests), with its build-id and package.  The process is not
 * trusted to stay: the mapping must be a file mapping with execute
 * permission; the file is opened through PROC/PID/map_files/START-END
 * (root with CAP_SYS_ADMIN) or else PROC/PID/root/PATH (openat2() with no
 * symbolic link followed), whose inode must be the mapping's; only a
 * regular file is opened (no device, no FIFO: checked before the open
 * and after); after the build-id is read the maps are read again
 * and must still map PC to the same file at the same place (an exec or
 * an munmap in between gives up).  The build-id is read with libdw
 * (dwelf_elf_gnu_build_id()).  Returns 1 and fills *O (parts that could
 * not be read are "" with O->note saying why), 0 when PC is in no file
 * mapping (the process is gone, or it is JIT code; *WHY says which), or
 * -errno. */
int bug_object_of_pc(const char *proc, pid_t pid, uint64_t pc, struct bug_object *o,
		     const char **why);

/* The object of the main executable of PROC/PID, for an async fault,
 * which has no pc: the executable mapping of the file PROC/PID/exe names
 * (by its inode), then as bug_object_of_pc() at its start (O->offset is
 * that of the mapping, not of any instruction).  1, 0 (*WHY), -errno. */
int bug_object_of_exe(const char *proc, pid_t pid, struct bug_object *o, const char **why);

/* Open PATH read-only under the directory ROOT ("/": the root) without
 * following any symbolic link on the way (openat2() RESOLVE_NO_SYMLINKS,
 * else O_NOFOLLOW on the last component), non-blocking.  An fd or
 * -errno. */
int bug_open_beneath(const char *root, const char *path);

/* The package (dpkg's name, ":ARCH" for a Multi-Arch: same package) and
 * version that own PATH, if PATH on this host is the file of INODE (a
 * container's file of the same name is not the host's package's).  The
 * dpkg database under ADMINDIR (NULL: /var/lib/dpkg): info/\*.list, read
 * line by line with bounds (BUG_DPKG_MAX_BYTES in all), and status.
 * /usr/lib/... also matches /lib/... (merged /usr).  A small cache keyed
 * by the path, dropped when the status file changes.  1 found, 0 not (or
 * skipped: *WHY), -errno. */
#define BUG_DPKG_MAX_BYTES (256u << 20)
int bug_dpkg_owner(const char *admindir, const char *path, uint64_t inode, char *pkg,
		   size_t pkg_len, char *version, size_t version_len, const char **why);

/* The dpkg admin directory bug_object_of_pc() uses (tests: a recorded
 * one; NULL: /var/lib/dpkg). */
void bug_set_dpkg_admindir(const char *dir);

/* The cause as it goes into the signature: "overflow", "underflow",
 * "use-after-free" (wild-pointer too: a freed chunk that malloc handed out
 * again carries another live allocation's tag, so the classifier calls the
 * same stale pointer one or the other by chance of reuse) or "unknown". */
const char *bug_cause_class(const char *cause);

/* One frame of the faulting thread's stack (coreframes.h): FRAME 0 the
 * pc, then the callers, each by its return address. */
#define BUG_CALLERS 3             /* callers that go in the stack signature */
struct bug_frame {
	uint64_t pc;              /* absolute: this process's address */
	char object[1024];        /* the file mapped there, "" none */
	uint64_t offset;          /* PC's offset in that file */
	char build_id[2 * BUG_BUILD_ID_MAX + 1]; /* hex, "" unknown */
};

/* The signature (BUG_SIGNATURE_LEN hex digits and a NUL) into OUT.
 * BUILD_ID hex, or "" to use PACKAGE, VERSION and PATH; false (OUT "")
 * when there is nothing to name the object by. */
bool bug_signature(const char *build_id, const char *package, const char *version,
		   const char *path, const char *cause, uint64_t offset,
		   char out[BUG_SIGNATURE_LEN + 1]);

/* The coarse signature of an async fault, which has no pc: the first 16
 * hex digits of SHA-256("mtag-bug-v1" NUL BUILD_ID NUL "async" NUL) of
 * the process's main executable (the package, its version and its path
 * without a build-id, as bug_signature()).  Every async fault of one
 * build of one program is one line. */
bool bug_async_signature(const char *build_id, const char *package, const char *version,
			 const char *path, char out[BUG_SIGNATURE_LEN + 1]);

/* The stack signature, a second level under SIGNATURE: the first 16 hex
 * digits of SHA-256("mtag-stack-v1" NUL SIGNATURE NUL, then for each
 * caller FR[1..] up to BUG_CALLERS: BUILD_ID NUL OFFSET NUL).  The
 * callers are taken up to the first without a build-id; false (OUT "")
 * when none has one.  *N_USED: how many went in (may be NULL). */
bool bug_stack_signature(const char *signature, const struct bug_frame *fr, size_t n,
			 char out[BUG_SIGNATURE_LEN + 1], size_t *n_used);

/* FR as "BUILD_ID+0xOFFSET" words, FR[0] first, ' ' between them ("?"
 * for an unknown build-id), into BUF: MTAG_FRAMES. */
void bug_frames_text(const struct bug_frame *fr, size_t n, char *buf, size_t len);

#endif
